// The freshness check of a page read on a standby, made in the page's own snapshot rather than by a lag
// estimate: the admission reads the customer's feed version after fixing the horizon
// (migrations/0007_request-admission.sql), and every statement of a page returns the feed version its
// snapshot shows (loads/list.ts). A statement whose snapshot shows an older version ran on a standby that
// has not replayed every change the horizon covers: it is refused, and the page is read elsewhere. So a
// page from a standby is the page the primary would serve, its totalCount is exact, and the pages of a
// walk never go back in time. The test is per customer: other customers' writes, which keep a busy
// primary's WAL ahead of every standby, hold nothing back. (A check of pg_last_wal_replay_lsn() against
// the primary's WAL position would fail on every request a busy primary serves, and inside the page's
// statement it would be read after the snapshot was taken.)
import type { Queryable } from './pool.js';

/** A standby statement whose snapshot is older than the page needs. */
export class StandbyBehind extends Error {}

/** `db` with every statement's snapshot checked: one showing an older feed version than `feedVersion` is refused. */
export function currentEnough(db: Queryable, feedVersion: bigint): Queryable {
  const query = async (sql: string, values?: unknown[]) => {
    const result = await db.query<{ feed_version?: string }>(sql, values);
    const version = result.rows[0]?.feed_version;
    if (version === undefined || BigInt(version) < feedVersion) throw new StandbyBehind();
    return result;
  };
  return { query } as unknown as Queryable;
}
