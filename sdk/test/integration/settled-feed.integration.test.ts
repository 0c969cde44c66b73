import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, memoryCursorStore, syncLoads, type LoadRow } from '../../src/index.js';
import { FAST_LIMIT } from './fixture.js';

// Against the reference server, whose feed is settled (DECISIONS.md), syncLoads with no overlap at all
// misses nothing: the 5-minute overlap it keeps by default is a margin there, not what correctness rests on.
describe('syncLoads with no overlap, against a settled feed', () => {
  const database = useTestDatabase();
  let server: TestServer;
  let key: string;
  const connections: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    connections.push(client);
    return client;
  };
  const setPo = (client: pg.Client, customer: string, loadNumber: string, po: string) =>
    client.query(
      'UPDATE loads SET po_number = $3::text WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = $2::text',
      [customer, loadNumber, po],
    );
  const pickup = new Date(Date.now() - 30 * 86_400_000).toISOString();

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: FAST_LIMIT });
    for (const code of ['g', 'a']) {
      await server.createCustomer(code);
      await server.importLoads(code, ['1', '2', '3'].map((n) => ({ loadNumber: `${code}-${n}`, status: 'Available' as const, scheduledPickupDate: pickup })));
    }
    key = (await server.createKey('a')).key;
  });
  afterAll(async () => {
    await Promise.all(connections.map((client) => client.end().catch(() => {})));
    await server?.stop();
  });

  it("receives a long ETL transaction's change that reached the customer after the client's cursor moved", async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey: key });
    const copy = new Map<string, LoadRow>();
    const cursorStore = memoryCursorStore();
    const sync = () => syncLoads({ client, cursorStore, overlapMs: 0, upsert: (rows) => rows.forEach((row) => copy.set(row.loadNumber, row)) });
    await sync();

    const etl = await connect();
    const shortWriter = await connect();
    await etl.query('BEGIN');
    await setPo(etl, 'g', 'g-1', 'etl');
    // The short write lands in a later millisecond of the database's clock than the ETL's start.
    const etlStarted = (await etl.query<{ at: string }>('SELECT now()::text AS at')).rows[0]!.at;
    await expect.poll(async () => (await shortWriter.query<{ later: boolean }>("SELECT date_trunc('milliseconds', clock_timestamp()) > $1::timestamptz AS later", [etlStarted])).rows[0]!.later).toBe(true);
    await setPo(shortWriter, 'a', 'a-1', 'short');
    await expect.poll(async () => (await sync(), copy.get('a-1')?.poNumber), { timeout: 5_000 }).toBe('short');
    await setPo(etl, 'a', 'a-2', 'etl');
    await etl.query('COMMIT');
    await expect.poll(async () => (await sync(), copy.get('a-2')?.poNumber), { timeout: 5_000 }).toBe('etl');

    const truth = await (await connect()).query<{ load_number: string; po_number: string | null }>(
      "SELECT load_number, po_number FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = 'a') ORDER BY load_number",
    );
    expect([...copy.values()].map((row) => [row.loadNumber, row.poNumber]).sort()).toEqual(truth.rows.map((row) => [row.load_number, row.po_number]));
  });
});
