// A client that disconnects while its page is being read: the statement is cancelled in PostgreSQL, and
// the request's turn at the database goes to the next request only once that statement has ended, so
// that leaving clients cannot pile statements up behind the gate. The page statement is held up by a
// lock a test session takes on the loads table, so that it is certainly running when the client leaves.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from './support/app.js';
import { arrivals } from './support/arrivals.js';

interface Backend {
  pid: number;
  query: string;
  waiting: boolean;
}

describe('a client that disconnects', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;
  let baseUrl: string;

  beforeAll(async () => {
    // One turn; bounds long enough that nothing but the cancel can end the held statement.
    app = await startApp(database.url, { env: { PORT: '0', DB_POOL_SIZE: '1', DB_LOCK_TIMEOUT_MS: '60000', DB_STATEMENT_TIMEOUT_MS: '60000', MAX_QUEUE_WAIT_MS: '60000' } });
    await app.server.start();
    baseUrl = `http://127.0.0.1:${app.server.info.port}`;
    await app.customer('acme');
    await app.load('acme', Array.from({ length: 20 }, (_, index) => aLoad(`D-${index}`)));
    key = (await app.key('acme')).key;
  });
  afterAll(async () => {
    await app?.close();
  });

  /** The server's statements that read the feed (list-statements.ts), now. */
  async function pageStatements(observer: pg.Client): Promise<Backend[]> {
    const { rows } = await observer.query<Backend>(
      `SELECT pid, query, wait_event_type IS NOT DISTINCT FROM 'Lock' AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query ILIKE '%feed_loads(%'`,
    );
    return rows;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (let tries = 0; tries < 1000; tries += 1) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the condition did not come about within 10 s');
  }

  it('has its page statement cancelled, and its turn goes to the next request only after that', async () => {
    const locker = new pg.Client({ connectionString: database.url });
    const observer = new pg.Client({ connectionString: database.url });
    await locker.connect();
    await observer.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE loads IN ACCESS EXCLUSIVE MODE');
      const arrived = arrivals(app.server);
      const leaving = new AbortController();
      const left = fetch(`${baseUrl}/api/v1/loads`, { headers: { authorization: `Bearer ${key}` }, signal: leaving.signal }).catch(() => 'aborted');
      // Running, and held up by the lock.
      const [held] = await until(() => pageStatements(observer), (rows) => rows.length === 1 && rows[0]!.waiting);
      // The next request waits for the one turn.
      const next = fetch(`${baseUrl}/api/v1/loads`, { headers: { authorization: `Bearer ${key}` } });
      await arrived(2);
      expect((await pageStatements(observer)).map((row) => row.pid)).toEqual([held!.pid]);

      leaving.abort();
      expect(await left).toBe('aborted');
      // The held statement ends while the lock is still held: cancelled, not completed. The next request's
      // statement then runs in its place, never beside it.
      const after = await until(
        () => pageStatements(observer),
        (rows) => !rows.some((row) => row.pid === held!.pid) && rows.length === 1,
      );
      expect(after).toHaveLength(1);

      await locker.query('ROLLBACK');
      expect((await next).status).toBe(200);
      // A client that left is no server error: nothing is logged as one.
      expect(app.logLines.map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50)).toEqual([]);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      await observer.end();
    }
  });
});
