// The connection pool every part of the server borrows from, and the bounds on each database call.
import pg from 'pg';
import { clientWithDeadline } from './query-deadline.js';

/** What a page's statements need of a database: a pool, or one that checks or cancels its statements. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolOptions {
  /** Connections at most; the default suits one instance beside others on one PostgreSQL. */
  max?: number;
  /** PostgreSQL's statement_timeout for the pool's sessions (0: none). A statement past it is
   * cancelled by the server, which frees the backend as well as the request. */
  statementTimeoutMs?: number;
  /** PostgreSQL's lock_timeout for the pool's sessions (0: none): no statement queues for a lock longer. */
  lockTimeoutMs?: number;
  /** How long to wait for a connection (an idle one, or a new one to open) before failing. */
  connectTimeoutMs?: number;
  /** Told about an error of an idle connection (a restart or a terminated backend), which pg raises
   * as an 'error' event that would otherwise end the process. The pool replaces the connection. */
  onIdleError?: (error: Error) => void;
}

/**
 * The client-side deadline of a query with `statementTimeoutMs`: the server's own timeout ends a slow
 * statement first; this one ends a call whose server does not answer at all (frozen, or a network that
 * drops packets without a reset). A connection whose query passed it is destroyed, never reused: the
 * answer it still owes would reach the next borrower.
 */
function queryDeadlineMs(statementTimeoutMs: number): number {
  return statementTimeoutMs === 0 ? 0 : statementTimeoutMs + 1_000;
}

/**
 * A pool whose idle connections may fail without crashing the process. The session's timeouts travel in
 * the `options` startup parameter; a transaction-mode pooler (PgBouncer) is told to ignore it and the
 * role carries them instead (README: PgBouncer), and the client-side deadline holds either way. Parallel
 * query is turned off on the database (migrations/0008_parallel-query-off.sql), so that it holds through
 * any pooler.
 */
export function createPool(
  databaseUrl: string,
  { max = 10, statementTimeoutMs = 0, lockTimeoutMs = 0, connectTimeoutMs = 5_000, onIdleError = () => {} }: PoolOptions = {},
): pg.Pool {
  const deadline = queryDeadlineMs(statementTimeoutMs);
  const options = [...(statementTimeoutMs > 0 ? [`-c statement_timeout=${statementTimeoutMs}`] : []), ...(lockTimeoutMs > 0 ? [`-c lock_timeout=${lockTimeoutMs}`] : [])];
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // The deadline is kept by the client class (db/query-deadline.ts); `query_timeout` stays in the options
    // for clients made from them elsewhere (db/settled-feed-check.ts), which keep pg's own.
    ...(deadline > 0 ? { query_timeout: deadline, Client: clientWithDeadline(deadline) } : {}),
    // A bound of 0 is left out rather than sent, so that it does not override one set on the role or database.
    ...(options.length > 0 ? { options: options.join(' ') } : {}),
  });
  pool.on('error', onIdleError);
  return pool;
}

/** Runs `work` in one transaction on one connection, committing when it resolves and rolling back when it throws. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // Released with an error when the connection's state is unknown, so that pg destroys it instead of
  // lending a broken or still-busy session (in a transaction, or owing a reply) to the next borrower.
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A failed rollback (the connection is gone) must not hide the error that caused it.
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
