// A key's window is one row, written in place: 100,000 requests leave one row and a bounded array.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { admitManyAt } from './simulated-window.js';

describe('the rate window does not grow with requests', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;

  beforeAll(async () => {
    await migrate(database.url);
    pool = createPool(database.url, { max: 1 });
    await addCustomer(pool, 'acme');
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('holds one row for a key after 100,000 requests, with at most its limit of stamps', { timeout: 120_000 }, async () => {
    const limit = 10;
    const { id } = await createKey(pool, 'acme', { rateLimit: limit });
    // 6 s apart: every request is admitted and written, and the window stays full.
    const start = Date.parse('2026-06-15T12:00:00.000Z');
    const decisions = await admitManyAt(pool, id, limit, Array.from({ length: 100_000 }, (_, index) => start + index * 6_000));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(100_000);
    const { rows } = await pool.query<{ entries: number }>('SELECT cardinality(stamps) AS entries FROM rate_limit_windows WHERE key_id = $1::uuid', [id]);
    expect(rows).toEqual([{ entries: limit }]);
    // The previous release's table of hits (kept empty for its calls in flight during the upgrade) holds none.
    const { rows: hits } = await pool.query<{ n: number }>('SELECT count(*)::integer AS n FROM rate_limit_hits WHERE key_id = $1::uuid', [id]);
    expect(hits).toEqual([{ n: 0 }]);
  });
});
