import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startProxy, type CuttableProxy } from '../support/proxy.js';

// The pool's statement timeout is 200 ms, so each query's client-side deadline is 1.2 s (pool.ts).
const STATEMENT_TIMEOUT_MS = 200;
const DEADLINE_MS = STATEMENT_TIMEOUT_MS + 1_000;

describe("each query's client-side deadline (db/query-deadline.ts)", () => {
  const database = useTestDatabase();
  let proxy: CuttableProxy;
  beforeAll(async () => {
    proxy = await startProxy(database.url);
  });
  afterAll(async () => {
    proxy.thaw();
    await proxy?.close();
  });

  /** Runs `call` against a database that has stopped answering; resolves with its error and how long it took. */
  async function againstFrozen(call: (client: pg.PoolClient) => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const pool = createPool(proxy.url, { max: 1, statementTimeoutMs: STATEMENT_TIMEOUT_MS, connectTimeoutMs: 500 });
    const client = await pool.connect();
    try {
      await client.query('SELECT 1');
      proxy.freeze();
      const started = Date.now();
      const error = await call(client).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      return { error, ms: Date.now() - started };
    } finally {
      proxy.thaw();
      client.release(true);
      await pool.end();
    }
  }

  it("ends a borrowed connection's query (the promise form, as a page's statements run) at the deadline with pg's error", async () => {
    const { error, ms } = await againstFrozen((client) => client.query('SELECT 1'));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Query read timeout');
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(ms).toBeLessThan(DEADLINE_MS + 1_500);
  });

  it('ends a query given a callback (the form pool.query uses) at the deadline, and calls the callback once', async () => {
    let calls = 0;
    const { error, ms } = await againstFrozen(
      (client) =>
        new Promise((resolve, reject) => {
          client.query('SELECT 1', [], (failure: Error | undefined) => {
            calls += 1;
            if (failure) reject(failure);
            else resolve(undefined);
          });
        }),
    );
    expect((error as Error).message).toBe('Query read timeout');
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(calls).toBe(1);
  });

  it('keeps the longer deadline of a query that carries its own', async () => {
    const own = DEADLINE_MS + 800;
    const { error, ms } = await againstFrozen((client) => client.query({ text: 'SELECT 1', query_timeout: own } as never));
    expect((error as Error).message).toBe('Query read timeout');
    expect(ms).toBeGreaterThanOrEqual(own - 50);
  });

  it('answers a query that arrives in time with its rows', async () => {
    const pool = createPool(database.url, { max: 1, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    try {
      const client = await pool.connect();
      try {
        expect((await client.query<{ n: number }>('SELECT 41 + $1::int AS n', [1])).rows).toEqual([{ n: 42 }]);
      } finally {
        client.release();
      }
      expect((await pool.query<{ n: number }>('SELECT 7 AS n')).rows).toEqual([{ n: 7 }]);
    } finally {
      await pool.end();
    }
  });
});
