// A key's rate window as it stands after `perSecond` requests a second sustained for a whole window, for
// bench:admission's steady-state rounds: the previous release's form (a row per counted request, in
// rate_limit_hits, and the window row's count) or this release's (one row per key: per-second counts
// above 1,000 a minute, every stamp up to it). Made directly rather than by a window of requests; the tables
// are vacuumed after, so neither side starts with dead rows the fill left (the previous release's own
// deletes of expired hits then leave theirs, as they do in service).
import { RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import type pg from 'pg';

/** Fills the previous release's window of key `keyId` (migrations up to 0011; its window was 60 s). */
export async function fillPreviousWindow(pool: pg.Pool, keyId: string, perSecond: number): Promise<number> {
  const requests = perSecond * 60;
  await pool.query('DELETE FROM rate_limit_hits WHERE key_id = $1::uuid', [keyId]);
  await pool.query(
    `INSERT INTO rate_limit_hits (key_id, at)
     SELECT $1::uuid, now() - interval '60 seconds' + g * (interval '60 seconds' / $2::integer) FROM generate_series(1, $2::integer) AS g`,
    [keyId, requests],
  );
  await pool.query(
    `INSERT INTO rate_limit_windows AS w (key_id, counted) VALUES ($1::uuid, $2::integer)
     ON CONFLICT (key_id) DO UPDATE SET counted = excluded.counted`,
    [keyId, requests],
  );
  await pool.query('VACUUM (ANALYZE) rate_limit_hits, rate_limit_windows');
  return requests;
}

/**
 * Fills this release's window of key `keyId` of limit `limit`: a window's per-second counts of `perSecond` above
 * 1,000 a minute; at or below it, evenly spaced stamps, at most half the limit (so that requests are
 * still admitted).
 */
export async function fillWindow(pool: pg.Pool, keyId: string, limit: number, perSecond: number): Promise<number> {
  if (limit > 1000) {
    await pool.query(
      `UPDATE rate_limit_windows AS w
          SET stamps = ARRAY(SELECT date_bin(interval '1 second', clock_timestamp() - g * interval '1 second', timestamptz '2000-01-01T00:00:00Z')
                               FROM generate_series($3::integer - 1, 0, -1) AS g),
              stamp_counts = array_fill($2::integer, ARRAY[$3::integer])
        WHERE w.key_id = $1::uuid`,
      [keyId, perSecond, RATE_WINDOW_SECONDS],
    );
    await pool.query('VACUUM (ANALYZE) rate_limit_windows');
    return perSecond * RATE_WINDOW_SECONDS;
  }
  const requests = Math.min(perSecond * RATE_WINDOW_SECONDS, Math.floor(limit / 2));
  await pool.query(
    `UPDATE rate_limit_windows AS w
        SET stamps = ARRAY(SELECT date_trunc('milliseconds', clock_timestamp() - $3::integer * interval '1 second' + g * ($3::integer * interval '1 second' / $2::integer))
                             FROM generate_series(1, $2::integer) AS g ORDER BY 1),
            stamp_counts = NULL
      WHERE w.key_id = $1::uuid`,
    [keyId, requests, RATE_WINDOW_SECONDS],
  );
  await pool.query('VACUUM (ANALYZE) rate_limit_windows');
  return requests;
}
