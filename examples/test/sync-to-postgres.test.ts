// examples/sync-to-postgres, run as a customer runs it: the customer's own PostgreSQL (a database apart
// from the server's) ends up equal to what the API serves, with the cursor beside the rows, re-runs
// upsert, and a sync that fails part-way leaves every page with its cursor or neither.
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { asLoad, byLoadNumber, expectWholePagesUpTo, newestUpdatedAt, run, startProxy, useReferenceServer } from './support.js';

const reference = useReferenceServer({ maxPageSize: 5 });
/** The customer's own database: the example creates its tables there. */
const customerDatabase = useTestDatabase();

const SCRIPT = 'sync-to-postgres/sync.mjs';

async function read(): Promise<{ loads: ReturnType<typeof asLoad>[]; cursor: string | undefined; primaryKey: string[] }> {
  const client = new pg.Client({ connectionString: customerDatabase.url });
  await client.connect();
  try {
    // numeric comes back as text, as the API sends it; timestamptz as a Date.
    const loads = (await client.query<Record<string, unknown>>('SELECT * FROM loads')).rows.map(asLoad);
    const cursor = (await client.query<{ cursor: Date }>(`SELECT cursor FROM loadfeed_cursor WHERE feed = 'public.loads'`)).rows[0]?.cursor.toISOString();
    const primaryKey = (
      await client.query<{ attname: string }>(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
          WHERE i.indrelid = 'loads'::regclass AND i.indisprimary`,
      )
    ).rows.map((row) => row.attname);
    return { loads, cursor, primaryKey };
  } finally {
    await client.end();
  }
}

async function emptyCustomerDatabase(): Promise<void> {
  const client = new pg.Client({ connectionString: customerDatabase.url });
  await client.connect();
  try {
    await client.query('DROP TABLE IF EXISTS loads, loadfeed_cursor');
  } finally {
    await client.end();
  }
}

describe('examples/sync-to-postgres', () => {
  it('copies every load the API serves into a table keyed by load_number, with the cursor in the same database', async () => {
    await emptyCustomerDatabase();
    const customer = await reference.customer(23);

    const result = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, DATABASE_URL: customerDatabase.url } });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^synced 23 rows in \d+ pages; cursor \S+\n$/);
    const served = await customer.served();
    const copy = await read();
    expect(byLoadNumber(copy.loads)).toEqual(byLoadNumber(served));
    expect(copy.cursor).toBe(newestUpdatedAt(served));
    expect(copy.primaryKey).toEqual(['load_number']);
  });

  it('a scheduled re-run picks up changed and new loads without duplicating a row', async () => {
    await emptyCustomerDatabase();
    const customer = await reference.customer(12);
    const env = { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, DATABASE_URL: customerDatabase.url };
    expect((await run('node', [SCRIPT], { env })).code).toBe(0);

    await reference.server.importLoads(customer.code, [customer.load(5, { totalCost: '99999.99', destinationCity: 'Laredo' }), customer.load(13)]);
    const again = await run('node', [SCRIPT], { env });

    expect(again.code).toBe(0);
    const served = await customer.served();
    const copy = await read();
    expect(copy.loads).toHaveLength(13);
    expect(byLoadNumber(copy.loads)).toEqual(byLoadNumber(served));
    expect(copy.cursor).toBe(newestUpdatedAt(served));
  });

  it('a sync that fails part-way keeps whole pages with their cursor and nothing past it, and the next run completes', async () => {
    await emptyCustomerDatabase();
    const customer = await reference.customer(24, 3);
    const failing = await startProxy(reference.server.baseUrl, { refuseFrom: 4 });
    let failed;
    try {
      failed = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: failing.url, LOADFEED_API_KEY: customer.key, DATABASE_URL: customerDatabase.url } });
    } finally {
      await failing.close();
    }

    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^sync failed: 401/);
    const partial = await read();
    expect(partial.loads.length).toBeGreaterThan(0);
    expect(partial.loads.length).toBeLessThan(24);
    expectWholePagesUpTo(partial.loads, String(partial.cursor), await customer.served());

    const resumed = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, DATABASE_URL: customerDatabase.url } });
    expect(resumed.code).toBe(0);
    expect(byLoadNumber((await read()).loads)).toEqual(byLoadNumber(await customer.served()));
  });
});
