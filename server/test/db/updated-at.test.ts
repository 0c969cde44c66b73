import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backdateLoads } from '../../src/seed/history.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

describe('the updatedAt rule, kept by the database', () => {
  const database = useTestDatabase();
  let app: TestApp;

  const stampOf = async (loadNumber: string): Promise<Date> =>
    (await app.pool.query<{ at: Date }>('SELECT updated_at AS at FROM loads WHERE load_number = $1::text', [loadNumber])).rows[0]!.at;
  /** Until the database's clock is in a later millisecond, so that a new stamp is told from a kept one. */
  const pause = () => nextDatabaseMillisecond(app.pool);

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stamps each row when it is written, at millisecond precision, not when its transaction began', async () => {
    const client = await app.pool.connect();
    try {
      await client.query('BEGIN');
      const began = (await client.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at;
      await client.query("INSERT INTO loads (customer_id, load_number, status) SELECT id, 'T-2', 'Available' FROM customers WHERE code = 'acme'");
      // The second row is written in a later millisecond of the same transaction.
      await nextDatabaseMillisecond(client);
      await client.query("INSERT INTO loads (customer_id, load_number, status) SELECT id, 'T-3', 'Available' FROM customers WHERE code = 'acme'");
      await client.query('COMMIT');
      const [two, three] = [await stampOf('T-2'), await stampOf('T-3')];
      expect(two.getTime()).toBeGreaterThanOrEqual(began.getTime());
      expect(three.getTime()).toBeGreaterThan(two.getTime());
    } finally {
      client.release();
    }
    const { rows: precision } = await app.pool.query<{ sub_ms: number }>(
      `SELECT count(*) FILTER (WHERE updated_at <> date_trunc('milliseconds', updated_at))::int AS sub_ms FROM loads WHERE load_number LIKE 'T-%'`,
    );
    expect(precision[0]!.sub_ms).toBe(0);
  });

  it('keeps updatedAt when a re-import changes nothing', async () => {
    await app.load('acme', [aLoad('R-1', { miles: '10.50' })]);
    const first = await stampOf('R-1');
    await pause();
    expect(await app.load('acme', [aLoad('R-1', { miles: '10.50' })])).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
    expect(await stampOf('R-1')).toEqual(first);
  });

  it('moves updatedAt of the changed rows only when part of an import changes', async () => {
    await app.load('acme', [aLoad('P-1'), aLoad('P-2')]);
    const [one, two] = [await stampOf('P-1'), await stampOf('P-2')];
    await pause();
    expect(await app.load('acme', [aLoad('P-1'), aLoad('P-2', { status: 'InTransit' })])).toEqual({ inserted: 0, changed: 1, unchanged: 1 });
    expect(await stampOf('P-1')).toEqual(one);
    expect((await stampOf('P-2')).getTime()).toBeGreaterThan(two.getTime());
  });

  it('keeps the rule for a direct SQL UPDATE: a write of the same values keeps the stamp, a real change moves it', async () => {
    await app.load('acme', [aLoad('Q-1', { originCity: 'Tulsa' })]);
    const first = await stampOf('Q-1');
    const psql = new pg.Client({ connectionString: database.url });
    await psql.connect();
    try {
      await pause();
      await psql.query("UPDATE loads SET origin_city = 'Tulsa', status = status WHERE load_number = 'Q-1'");
      expect(await stampOf('Q-1')).toEqual(first);
      // Writing updated_at by hand does not take: the database keeps it.
      await psql.query("UPDATE loads SET updated_at = '2000-01-01T00:00:00Z' WHERE load_number = 'Q-1'");
      expect(await stampOf('Q-1')).toEqual(first);
      await psql.query("UPDATE loads SET origin_city = 'Tulsa, OK' WHERE load_number = 'Q-1'");
      const changed = await stampOf('Q-1');
      expect(changed.getTime()).toBeGreaterThan(first.getTime());
    } finally {
      await psql.end();
    }
  });

  it('treats a decimal written with other trailing zeros as a change, from the importer as from SQL: the API shows it differently', async () => {
    await app.load('acme', [aLoad('Z-1', { totalCost: '100.5' })]);
    const first = await stampOf('Z-1');
    await pause();
    expect(await app.load('acme', [aLoad('Z-1', { totalCost: '100.50' })])).toEqual({ inserted: 0, changed: 1, unchanged: 0 });
    const second = await stampOf('Z-1');
    expect(second).not.toEqual(first);
    await pause();
    await app.pool.query(`UPDATE loads SET total_cost = '100.500' WHERE load_number = 'Z-1'`);
    expect(await stampOf('Z-1')).not.toEqual(second);
  });

  it('stamps a direct SQL INSERT too, whatever updated_at it names', async () => {
    const { rows } = await app.pool.query<{ at: Date; now: Date }>(
      `INSERT INTO loads (customer_id, load_number, status, updated_at)
       SELECT id, 'I-1', 'Available', '1999-01-01T00:00:00Z' FROM customers WHERE code = 'acme'
       RETURNING updated_at AS at, date_trunc('milliseconds', now()) AS now`,
    );
    expect(rows[0]!.at.getTime()).toBeGreaterThanOrEqual(rows[0]!.now.getTime());
  });

  it('takes a past stamp from no writer, whatever session setting it sets (the trigger reads none)', async () => {
    await app.customer('fresh');
    const client = await app.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT set_config('loadfeed.backdating_customer', (SELECT id::text FROM customers WHERE code = 'fresh'), true)");
      await client.query(`INSERT INTO loads (customer_id, load_number, status, updated_at) SELECT id, 'B-0', 'Available', '2026-01-02T03:04:05.678Z' FROM customers WHERE code = 'fresh'`);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await stampOf('B-0')).getTime()).toBeGreaterThan(Date.parse('2026-06-01T00:00:00Z'));
  });

  it("gives the demo's history stamps only while seeding a customer no key can read yet, and leaves the trigger ALWAYS", async () => {
    await app.customer('seeded');
    const customerId = (await app.pool.query<{ id: string }>("SELECT id::text AS id FROM customers WHERE code = 'seeded'")).rows[0]!.id;
    await app.pool.query("INSERT INTO loads (customer_id, load_number, status) SELECT $1::bigint, n, 'Available' FROM unnest(ARRAY['S-1', 'S-2']) AS n", [customerId]);
    const versionOf = async () => (await app.pool.query<{ version: string }>('SELECT version::text AS version FROM customer_feed_versions WHERE customer_id = $1::bigint', [customerId])).rows[0]!.version;
    const before = await versionOf();
    expect(await backdateLoads(app.pool, customerId, new Map([['S-1', '2026-01-02T03:04:05.678Z']]))).toBe(1);
    expect((await stampOf('S-1')).toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(await versionOf()).not.toBe(before);
    const { rows } = await app.pool.query<{ enabled: string }>("SELECT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'loads_keep_updated_at'");
    expect(rows).toEqual([{ enabled: 'A' }]);
    await app.key('seeded');
    const stamped = await stampOf('S-2');
    expect(await backdateLoads(app.pool, customerId, new Map([['S-2', '2026-01-02T03:04:05.678Z']]))).toBe(0);
    expect(await stampOf('S-2')).toEqual(stamped);
  });
});
