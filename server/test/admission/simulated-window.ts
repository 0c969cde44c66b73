// The rate window driven on a simulated database clock: rate_window_admit's `p_at` stands in for the
// clock_timestamp() the servers' admissions read, and decisionOf turns the row into the decision the
// rate headers carry, as admission.ts does.
import type pg from 'pg';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { decisionOf, type RateDecision, type WindowRow } from '../../src/admission/rate-window.js';

const ADMIT_AT_SQL = `
SELECT admitted, counted, oldest, admits_at, counted_at
  FROM rate_window_admit($1::uuid, $2::integer, $3::integer * interval '1 millisecond', $4::timestamptz)`;

/** The decision for a request of key `keyId` under `limit` when the database's clock reads `atMs`. */
export async function admitAt(pool: pg.Pool | pg.PoolClient, keyId: string, limit: number, atMs: number): Promise<RateDecision> {
  const { rows } = await pool.query<WindowRow & { counted_at: Date }>(ADMIT_AT_SQL, [keyId, limit, RATE_WINDOW_MS, new Date(atMs)]);
  const row = rows[0]!;
  return decisionOf(row, limit, row.counted_at);
}

/**
 * Requests of one key at each of `atMs` (ascending), counted one after another in the database by a loop
 * that commits every few requests (a transaction that updated the key's row thousands of times would
 * walk all its versions on each lookup); far faster than a round trip each. Their decisions, in order.
 */
export async function admitManyAt(pool: pg.Pool, keyId: string, limit: number, atMs: readonly number[]): Promise<RateDecision[]> {
  const client = await pool.connect();
  try {
    await client.query('CREATE TEMPORARY TABLE IF NOT EXISTS simulated_requests (n integer PRIMARY KEY, at timestamptz NOT NULL, admitted boolean, counted integer, oldest timestamptz, admits_at timestamptz, counted_at timestamptz)');
    await client.query('TRUNCATE simulated_requests');
    await client.query("INSERT INTO simulated_requests (n, at) SELECT n, timestamptz 'epoch' + ms * interval '1 millisecond' FROM unnest($1::bigint[]) WITH ORDINALITY AS r(ms, n)", [atMs]);
    await client.query("SELECT set_config('simulated.key_id', $1::text, false), set_config('simulated.limit', $2::text, false), set_config('simulated.window_ms', $3::text, false)", [keyId, limit, RATE_WINDOW_MS]);
    await client.query(`
DO $$
DECLARE
  request record;
  decided record;
  every_admitted boolean[] := '{}';
  every_counted integer[] := '{}';
  every_oldest timestamptz[] := '{}';
  every_admits_at timestamptz[] := '{}';
  every_counted_at timestamptz[] := '{}';
BEGIN
  FOR request IN SELECT n, at FROM simulated_requests ORDER BY n LOOP
    SELECT * INTO decided
      FROM rate_window_admit(current_setting('simulated.key_id')::uuid, current_setting('simulated.limit')::integer,
                             current_setting('simulated.window_ms')::integer * interval '1 millisecond', request.at);
    every_admitted := array_append(every_admitted, decided.admitted);
    every_counted := array_append(every_counted, decided.counted);
    every_oldest := array_append(every_oldest, decided.oldest);
    every_admits_at := array_append(every_admits_at, decided.admits_at);
    every_counted_at := array_append(every_counted_at, decided.counted_at);
    IF request.n % 100 = 0 THEN
      COMMIT;
    END IF;
  END LOOP;
  UPDATE simulated_requests AS s SET admitted = d.admitted, counted = d.counted, oldest = d.oldest, admits_at = d.admits_at, counted_at = d.counted_at
    FROM unnest(every_admitted, every_counted, every_oldest, every_admits_at, every_counted_at) WITH ORDINALITY AS d(admitted, counted, oldest, admits_at, counted_at, n)
   WHERE s.n = d.n;
END
$$`);
    const { rows } = await client.query<WindowRow & { counted_at: Date }>('SELECT admitted, counted, oldest, admits_at, counted_at FROM simulated_requests ORDER BY n');
    return rows.map((row) => decisionOf(row, limit, row.counted_at));
  } finally {
    client.release();
  }
}
