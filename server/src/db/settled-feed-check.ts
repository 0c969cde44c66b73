// The start-up check of the settled feed (migrations/0006_settled-feed.sql): the server serves a row
// only below a horizon it computes from the writers' locks in pg_locks, so a server that cannot see
// them would serve an unsafe feed without knowing it. It refuses to start instead, naming the grant.
import pg from 'pg';
import { OperatorError } from '../customers/customers.js';

export class SettledFeedUnavailableError extends OperatorError {
  override name = 'SettledFeedUnavailableError';
}

/** No customer has id 0 (ids start at 1), so the probe's writer holds back no real feed. */
const PROBE_CUSTOMER = '0';

const PRIVILEGES_SQL = `
SELECT current_user AS role,
       to_regprocedure('feed_settled_through(bigint)') IS NOT NULL AS migrated,
       has_table_privilege('pg_catalog.pg_locks', 'SELECT') AS reads_locks`;

/**
 * Throws SettledFeedUnavailableError unless the server's role can compute the horizon: the migration
 * is there, pg_locks is readable, and a writer announced on one connection holds the horizon back as
 * seen from another (what every request relies on). The writer is a connection of its own, made with
 * the pool's settings: with DB_POOL_SIZE=1 the pool has no second connection to give.
 */
export async function checkSettledFeed(pool: pg.Pool): Promise<void> {
  const { role, migrated, reads_locks: readsLocks } = (await pool.query<{ role: string; migrated: boolean; reads_locks: boolean }>(PRIVILEGES_SQL)).rows[0]!;
  if (!migrated) throw new SettledFeedUnavailableError('the database has no settled-feed functions: run `loadfeed-server migrate` first');
  if (!readsLocks) {
    throw new SettledFeedUnavailableError(
      `role ${role} cannot read pg_catalog.pg_locks, which the settled feed needs; as a superuser run: GRANT SELECT ON pg_catalog.pg_locks TO ${role}`,
    );
  }
  const writer = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
  await writer.connect();
  try {
    await writer.query('BEGIN');
    // An hour back, so that the horizon it holds down cannot be mistaken for the clock's own.
    const announced = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    await writer.query('SELECT announce_feed_writer($1::bigint, $2::timestamptz)', [PROBE_CUSTOMER, announced]);
    const horizon = (await pool.query<{ horizon: Date }>('SELECT feed_settled_through($1::bigint) AS horizon', [PROBE_CUSTOMER])).rows[0]!.horizon;
    if (horizon.getTime() >= announced.getTime()) {
      throw new SettledFeedUnavailableError(
        `role ${role} does not see other sessions' writer locks in pg_catalog.pg_locks, which the settled feed needs; as a superuser run: GRANT SELECT ON pg_catalog.pg_locks TO ${role}`,
      );
    }
  } finally {
    await writer.end().catch(() => {});
  }
}
