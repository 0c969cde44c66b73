import { SETTLED_THROUGH_HEADER } from '@loadfeed/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { feedCopy, truthOf, type FeedCopy } from '../support/feed-copy.js';

/** Customers a bulk writer writes in one transaction: past what PostgreSQL's default lock table holds. */
const BULK_CUSTOMERS = 20_000;

// DECISIONS.md, "Loads in the reference server": the feed is settled for every writer a real database
// has, on PostgreSQL's default settings — a writer of thousands of customers, a writer in
// session_replication_role replica, beside other applications' advisory locks — and no writer fails.
describe('the settled feed with the writers of a real database', () => {
  const database = useTestDatabase();
  let app: TestApp;
  const keys = new Map<string, string>();
  const clients: pg.Client[] = [];

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    clients.push(client);
    return client;
  }
  const copyOf = (customer: string): FeedCopy => feedCopy((query) => app.get(`/api/v1/loads?${query}`, keys.get(customer)));
  const horizonOf = async (customer: string): Promise<string> =>
    (await app.get('/api/v1/loads?pageSize=1', keys.get(customer))).headers[SETTLED_THROUGH_HEADER] as string;
  const setPo = (client: pg.Client, customer: string, loadNumber: string, po: string) =>
    client.query(
      `UPDATE loads SET po_number = $3::text WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = $2::text`,
      [customer, loadNumber, po],
    );

  beforeAll(async () => {
    app = await startApp(database.url);
    for (const code of ['a', 'b', 'untouched']) {
      await app.customer(code);
      keys.set(code, (await app.key(code)).key);
      await app.load(code, [aLoad(`${code}-1`), aLoad(`${code}-2`), aLoad(`${code}-3`)]);
    }
    // The bulk writer's customers, to each of which it writes a load.
    await app.pool.query(`INSERT INTO customers (code, name) SELECT 'bulk' || g, 'Bulk ' || g FROM generate_series(1, $1::integer) AS g`, [BULK_CUSTOMERS]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await app?.close();
  });

  it('runs on the default lock table: the test database has max_locks_per_transaction 64', async () => {
    const { rows } = await app.pool.query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'max_locks_per_transaction'`);
    expect(Number(rows[0]!.setting)).toBeLessThanOrEqual(64);
  });

  it(`commits a transaction that writes ${BULK_CUSTOMERS.toLocaleString('en')} customers, holding at most 17 feed locks, while other customers are served`, async () => {
    const untouched = copyOf('untouched');
    await untouched.poll();
    const bulk = await connect();
    await bulk.query('BEGIN');
    await bulk.query(
      `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
       SELECT c.id, c.code || '-1', 'Covered', timestamptz '2026-06-01T08:00:00Z' FROM customers AS c WHERE c.code LIKE 'bulk%'`,
    );
    const { rows } = await bulk.query<{ n: string }>(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`);
    expect(Number(rows[0]!.n)).toBeLessThanOrEqual(17);
    // A writer of another customer commits meanwhile; its client is served and waits for the bulk writer,
    // which holds every feed back while it runs, then gets the change.
    await setPo(await connect(), 'untouched', 'untouched-1', 'during-bulk');
    const during = await app.get('/api/v1/loads?pageSize=10', keys.get('untouched'));
    expect(during.statusCode).toBe(200);
    await bulk.query('COMMIT');
    await untouched.pollUntil((rows) => rows.get('untouched-1')?.poNumber === 'during-bulk');
    expect(untouched.rows).toEqual(await truthOf(app.pool, 'untouched'));
    const covered = await app.pool.query<{ n: string }>(`SELECT count(*) AS n FROM loads WHERE load_number LIKE 'bulk%' AND status = 'Covered'`);
    expect(Number(covered.rows[0]!.n)).toBe(BULK_CUSTOMERS);
  }, 120_000);

  it('delivers an update written in session_replication_role replica to a zero-overlap client', async () => {
    const copy = copyOf('a');
    await copy.poll();
    const replica = await connect();
    await replica.query(`SET session_replication_role = replica`);
    const versionBefore = (await app.pool.query<{ version: string }>(`SELECT version FROM customer_feed_versions WHERE customer_id = (SELECT id FROM customers WHERE code = 'a')`)).rows[0]!.version;
    await setPo(replica, 'a', 'a-2', 'replicated');
    await copy.pollUntil((rows) => rows.get('a-2')?.poNumber === 'replicated');
    expect(copy.rows).toEqual(await truthOf(app.pool, 'a'));
    const versionAfter = (await app.pool.query<{ version: string }>(`SELECT version FROM customer_feed_versions WHERE customer_id = (SELECT id FROM customers WHERE code = 'a')`)).rows[0]!.version;
    expect(BigInt(versionAfter)).toBeGreaterThan(BigInt(versionBefore));
  });

  it("does not let another application's advisory locks move a customer's horizon, whatever their mode and form", async () => {
    const { rows } = await app.pool.query<{ id: string }>(`SELECT id::text FROM customers WHERE code = 'b'`);
    const customerId = BigInt(rows[0]!.id);
    const other = await connect();
    // Keys built as the feed built them before (customer in the top 22 bits, milliseconds since 2020 below),
    // an hour back, and the same key's two int4 halves.
    const hourAgo = BigInt(Date.now() - Date.parse('2020-01-01T00:00:00Z') - 3_600_000);
    const oldKey = (customerId << 41n) | hourAgo;
    const high = Number(BigInt.asIntN(32, oldKey >> 32n));
    const low = Number(BigInt.asIntN(32, oldKey & 0xffffffffn));
    await other.query('SELECT pg_advisory_lock($1::bigint)', [oldKey.toString()]);
    await other.query('SELECT pg_advisory_lock_shared($1::bigint)', [(oldKey + 1n).toString()]);
    await other.query('SELECT pg_advisory_lock($1::integer, $2::integer)', [high, low]);
    await other.query('SELECT pg_advisory_lock_shared($1::integer, $2::integer)', [high, low + 1]);
    // And the feed's own key of this customer, an hour back, held by a session outside any writer's transaction.
    await other.query(`SELECT pg_advisory_lock_shared(feed_writer_key($1::bigint, now() - interval '1 hour'))`, [customerId.toString()]);
    await other.query(`SELECT pg_advisory_lock(feed_writer_key($1::bigint, now() - interval '1 hour'))`, [(customerId + 1n).toString()]);
    try {
      const horizon = Date.parse(await horizonOf('b'));
      expect(Date.now() - horizon).toBeLessThan(1_000);
      const copy = copyOf('b');
      await copy.poll();
      await setPo(await connect(), 'b', 'b-1', 'beside-foreign-locks');
      await copy.pollUntil((rows) => rows.get('b-1')?.poNumber === 'beside-foreign-locks');
    } finally {
      await other.query('SELECT pg_advisory_unlock_all()');
    }
  });

  it("keeps the server's maintenance locks (migrations, the feed index's upkeep) outside the feed's keys", async () => {
    const { rows } = await app.pool.query<{ outside: boolean }>(
      `SELECT bool_and(k >> 54 <> 421) AS outside FROM (VALUES (7241865325823964::bigint), (4714172026::bigint)) AS maintenance(k)`,
    );
    expect(rows[0]!.outside).toBe(true);
  });

  it('does not deadlock a bulk writer and a single-customer writer over the feed versions', async () => {
    // Before: each statement bumped its customers' version rows and held them to the end, so a writer of A
    // waited for A's version row behind the bulk writer while holding a load the bulk writer wanted next.
    const bulk = await connect();
    const single = await connect();
    await bulk.query('BEGIN');
    await bulk.query(`UPDATE loads SET po_number = 'bulk' WHERE load_number IN ('a-1', 'b-1')`);
    await single.query('BEGIN');
    await setPo(single, 'a', 'a-3', 'single');
    const bulkAgain = bulk.query(`UPDATE loads SET status = 'Dispatched' WHERE load_number IN ('a-3', 'b-3')`);
    await single.query('COMMIT');
    await bulkAgain;
    await bulk.query('COMMIT');
    const { rows } = await app.pool.query(`SELECT load_number, po_number, status FROM loads WHERE load_number IN ('a-1', 'a-3') ORDER BY load_number`);
    expect(rows).toEqual([
      { load_number: 'a-1', po_number: 'bulk', status: 'Available' },
      { load_number: 'a-3', po_number: 'single', status: 'Dispatched' },
    ]);
  });

  it('does not deadlock two writers of disjoint loads that reach two customers in opposite orders', async () => {
    const first = await connect();
    const second = await connect();
    await first.query('BEGIN');
    await second.query('BEGIN');
    await setPo(first, 'a', 'a-2', 'first');
    await setPo(second, 'b', 'b-2', 'second');
    await setPo(first, 'b', 'b-3', 'first');
    await setPo(second, 'a', 'a-1', 'second');
    await Promise.all([first.query('COMMIT'), second.query('COMMIT')]);
    const { rows } = await app.pool.query(`SELECT load_number, po_number FROM loads WHERE load_number IN ('a-1', 'a-2', 'b-2', 'b-3') ORDER BY load_number`);
    expect(rows.map((row) => row.po_number)).toEqual(['second', 'first', 'second', 'first']);
  });
});
