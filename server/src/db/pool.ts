// The connection pool every part of the server borrows from.
import pg from 'pg';

export interface PoolOptions {
  /** Connections at most; the default suits one instance beside others on one PostgreSQL. */
  max?: number;
  /** Told about an error of an idle connection (a restart or a terminated backend), which pg raises
   * as an 'error' event that would otherwise end the process. The pool replaces the connection. */
  onIdleError?: (error: Error) => void;
}

/**
 * A pool whose idle connections may fail without crashing the process. Parallel query is off for its
 * sessions: the feed's index-only scans are short, and under concurrency workers lowered throughput.
 */
export function createPool(databaseUrl: string, { max = 10, onIdleError = () => {} }: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    options: '-c max_parallel_workers_per_gather=0',
  });
  pool.on('error', onIdleError);
  return pool;
}

/** Runs `work` in one transaction on one connection, committing when it resolves and rolling back when it throws. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A failed rollback (the connection is gone) must not hide the error that caused it.
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
