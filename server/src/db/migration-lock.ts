// node-pg-migrate's advisory lock, taken by every migrate (the CLI's and each start's) on the session the
// migrations run in. Asked for without queueing, again every LOCK_POLL_MS: a wait behind another
// connection is then said at once (who holds it: another instance migrating, a `migrate` under way, or a
// session left open by hand), and a shutdown during the wait ends it instead of outlasting it.
import { PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import type pg from 'pg';

const LOCK_POLL_MS = 200;

/** A wait for the lock ended by its signal (a shutdown while another connection holds the lock). */
export class MigrationLockWaitAborted extends Error {
  override name = 'MigrationLockWaitAborted';
}

// A bigint advisory lock is pg_locks' classid (high half) and objid (low half), objsubid 1.
const HOLDER_SQL = `
SELECT l.pid, a.application_name, a.client_addr::text AS client_addr, to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
  FROM pg_catalog.pg_locks AS l LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid = l.pid
 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
   AND l.classid::bigint = ($1::bigint >> 32) AND l.objid::bigint = ($1::bigint & 4294967295)
 LIMIT 1`;

export interface LockWaitOptions {
  /** Told once, when the lock is held by another connection, what is waited for. */
  onWait?: (message: string) => void;
  /** Ends the wait with MigrationLockWaitAborted. */
  signal?: AbortSignal | undefined;
}

/** Takes the migrations' lock on `client`'s session, waiting while another connection holds it. */
export async function takeMigrationLock(client: pg.ClientBase, { onWait = () => {}, signal }: LockWaitOptions = {}): Promise<void> {
  let told = false;
  for (;;) {
    if (signal?.aborted) throw new MigrationLockWaitAborted('stopped while waiting for the migration lock');
    const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS taken', [PG_MIGRATE_LOCK_ID]);
    if (rows[0]!.taken) return;
    if (!told) {
      told = true;
      onWait(await describeHolder(client));
    }
    await pause(LOCK_POLL_MS, signal);
  }
}

export async function releaseMigrationLock(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1::bigint)', [PG_MIGRATE_LOCK_ID]);
}

async function describeHolder(client: pg.ClientBase): Promise<string> {
  const holder = (await client.query<{ pid: number; application_name: string | null; client_addr: string | null; since: string | null }>(HOLDER_SQL, [PG_MIGRATE_LOCK_ID]))
    .rows[0];
  const who = holder
    ? `PostgreSQL backend ${holder.pid}${holder.application_name ? ` (${holder.application_name})` : ''}${holder.client_addr ? ` from ${holder.client_addr}` : ''}${holder.since ? `, in a transaction since ${holder.since}` : ''}`
    : 'another connection';
  return `waiting for the migration lock (${PG_MIGRATE_LOCK_ID}), which ${who} holds: another instance migrating, or a \`loadfeed-server migrate\`; a session left holding it ends with pg_terminate_backend(pid)`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
