import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, withTransaction } from '../../src/db/pool.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startProxy, type CuttableProxy } from '../support/proxy.js';

describe('the pool and its transactions', () => {
  const database = useTestDatabase();
  let proxy: CuttableProxy;
  beforeAll(async () => {
    proxy = await startProxy(database.url);
  });
  afterAll(async () => {
    proxy.thaw();
    await proxy?.close();
  });

  it('ends a call to a database that stops answering within the statement timeout and a second', async () => {
    const pool = createPool(proxy.url, { max: 1, statementTimeoutMs: 300, connectTimeoutMs: 500 });
    try {
      await pool.query('SELECT 1');
      proxy.freeze();
      const started = Date.now();
      await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
      expect(Date.now() - started).toBeLessThan(3_000);
      // Opening a connection to it is bounded too.
      const opening = Date.now();
      await expect(pool.query('SELECT 1')).rejects.toThrow(/timeout/i);
      expect(Date.now() - opening).toBeLessThan(3_000);
    } finally {
      proxy.thaw();
      await pool.end();
    }
  });

  it('sets the statement and lock timeouts on its sessions', async () => {
    const pool = createPool(database.url, { max: 1, statementTimeoutMs: 1_234, lockTimeoutMs: 567 });
    try {
      const { rows } = await pool.query<{ statement: string; lock: string }>(
        "SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock",
      );
      expect(rows[0]).toEqual({ statement: '1234ms', lock: '567ms' });
      await expect(pool.query('SELECT pg_sleep(5)')).rejects.toThrow(/statement timeout/);
    } finally {
      await pool.end();
    }
  });

  it('destroys a connection whose rollback failed instead of lending it again', async () => {
    const pool = createPool(proxy.url, { max: 1, statementTimeoutMs: 200, connectTimeoutMs: 500 });
    try {
      const work = withTransaction(pool, async (client) => {
        proxy.freeze();
        await client.query('SELECT 1');
      });
      await expect(work).rejects.toThrow(/timeout/i);
      // The session still owes the replies of its timed-out queries: back in the pool, it would hand
      // them to the next borrower.
      expect(pool.idleCount).toBe(0);
      expect(pool.totalCount).toBe(0);
    } finally {
      proxy.thaw();
      await pool.end();
    }
  });

  it('returns a healthy connection to the pool after a rolled-back transaction', async () => {
    const pool = createPool(database.url, { max: 1 });
    try {
      await expect(withTransaction(pool, () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
      expect(pool.idleCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
