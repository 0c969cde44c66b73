// examples/sync-to-sqlite, run as a customer runs it against the reference server: the table equals what
// the API serves in the SDK's SQLite layout (the one `loadfeed sync --sqlite` writes and `loadfeed verify`
// reads), the cursor is saved in the same database, re-runs upsert, and a sync that fails part-way
// leaves every page with its cursor or neither.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { query } from './sqlite.js';
import { asLoad, byLoadNumber, expectWholePagesUpTo, newestUpdatedAt, run, startProxy, useReferenceServer, useScratchFolder } from './support.js';

// A small maximum page size makes every sync here take several pages.
const reference = useReferenceServer({ maxPageSize: 5 });
const scratch = useScratchFolder();

const SCRIPT = 'sync-to-sqlite/sync.mjs';
const loadsIn = (path: string) => query(path, 'SELECT * FROM loads').map(asLoad);
const cursorIn = (path: string) => query(path, 'SELECT cursor FROM loadfeed_sync WHERE id = 1')[0]?.cursor;

describe('examples/sync-to-sqlite', () => {
  it('copies every load the API serves into the SDK\'s table keyed by loadNumber, and keeps the cursor in the same database', async () => {
    const customer = await reference.customer(23);
    const database = join(scratch.path, `${customer.code}.db`);

    const result = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, SQLITE_PATH: database } });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^synced 23 rows in \d+ pages; cursor \S+\n$/);
    const served = await customer.served();
    expect(byLoadNumber(loadsIn(database))).toEqual(byLoadNumber(served));
    expect(cursorIn(database)).toBe(newestUpdatedAt(served));
    expect(query(database, 'PRAGMA table_info(loads)').find((column) => column.pk === 1)?.name).toBe('loadNumber');
    // The layout `loadfeed verify --sqlite` reads: the copy it wrote is complete.
    const verified = await run('loadfeed', ['verify', '--sqlite', database], { env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key } });
    expect(verified.stdout).toMatch(/the copy is complete\n$/);
    expect(verified.code).toBe(0);
  });

  it('a scheduled re-run picks up changed and new loads without duplicating a row', async () => {
    const customer = await reference.customer(12);
    const database = join(scratch.path, `${customer.code}.db`);
    const env = { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, SQLITE_PATH: database };
    expect((await run('node', [SCRIPT], { env })).code).toBe(0);

    await reference.server.importLoads(customer.code, [customer.load(2, { status: 'Cancelled' }), customer.load(13)]);
    const again = await run('node', [SCRIPT], { env });

    expect(again.code).toBe(0);
    const served = await customer.served();
    expect(byLoadNumber(loadsIn(database))).toEqual(byLoadNumber(served));
    expect(loadsIn(database)).toHaveLength(13);
    expect(cursorIn(database)).toBe(newestUpdatedAt(served));
  });

  it('a sync that fails part-way keeps whole pages with their cursor and nothing past it, and the next run completes', async () => {
    const customer = await reference.customer(24, 3);
    const database = join(scratch.path, `${customer.code}.db`);
    const failing = await startProxy(reference.server.baseUrl, { refuseFrom: 4 });
    let failed;
    try {
      failed = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: failing.url, LOADFEED_API_KEY: customer.key, SQLITE_PATH: database } });
    } finally {
      await failing.close();
    }

    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^sync failed: 401/);
    const partial = loadsIn(database);
    const cursor = cursorIn(database);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(24);
    expectWholePagesUpTo(partial, String(cursor), await customer.served());

    const resumed = await run('node', [SCRIPT], { env: { LOADFEED_BASE_URL: reference.server.baseUrl, LOADFEED_API_KEY: customer.key, SQLITE_PATH: database } });
    expect(resumed.code).toBe(0);
    expect(byLoadNumber(loadsIn(database))).toEqual(byLoadNumber(await customer.served()));
  });
});
