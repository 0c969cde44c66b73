// An import beside another writer of the loads table (an ETL, psql, logical replication's apply worker)
// that writes the same customer's loads while the import runs. The import inserts the loads its
// statement's snapshot does not hold (src/loads/import-sql.ts, UPSERT_SQL): a load the other writer
// inserts meanwhile and commits makes the import fail with a clear message and import nothing; one it
// rolls back does not; a load it changes is then changed by the import, whose values win.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LoadInput } from '@loadfeed/spec';
import { customerIdOf } from '../../src/customers/customers.js';
import { ConcurrentLoadWriteError, importLoads } from '../../src/loads/import.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

const LOADS = 300;

function rows(loads: LoadInput[]) {
  return loads.map((value, index) => ({ line: index + 1, value }));
}

describe('an import beside another writer of the same customer\'s loads', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let writer: pg.Client;
  let customerId: string;
  let round = 0;
  let prefix: string;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
    customerId = await customerIdOf(app.pool, 'acme');
  });
  beforeEach(async () => {
    round += 1;
    prefix = `W${round}-`;
    writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
  });
  afterEach(async () => {
    await writer.end();
  });
  afterAll(async () => {
    await app?.close();
  });

  const file = (poNumber: string): LoadInput[] => Array.from({ length: LOADS }, (_, index) => aLoad(`${prefix}${index}`, { poNumber }));

  /** Resolves once the import's statement waits for the writer's open transaction. */
  async function importWaits(): Promise<void> {
    for (;;) {
      const { rows: waiting } = await app.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> $1::int AND wait_event_type = 'Lock' AND query LIKE '%WITH changed AS%'`,
        [(writer as unknown as { processID: number }).processID],
      );
      if (waiting[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function poNumbers(): Promise<Map<string, number>> {
    const { rows: counted } = await app.pool.query<{ po_number: string | null; n: number }>(
      'SELECT po_number, count(*)::int AS n FROM loads WHERE customer_id = $1::bigint AND load_number LIKE $2::text GROUP BY po_number',
      [customerId, `${prefix}%`],
    );
    return new Map(counted.map((row) => [row.po_number ?? 'null', row.n]));
  }

  it('a load the other writer inserts and commits meanwhile fails the import, which then imports nothing', async () => {
    await writer.query('BEGIN');
    await writer.query("INSERT INTO loads (customer_id, load_number, status, po_number) VALUES ($1::bigint, $2::text, 'Available', 'theirs')", [customerId, `${prefix}150`]);
    const importing = importLoads(app.pool, 'acme', rows(file('ours')));
    const outcome = importing.then(
      () => undefined,
      (error: unknown) => error,
    );
    await importWaits();
    await writer.query('COMMIT');
    const error = await outcome;
    expect(error).toBeInstanceOf(ConcurrentLoadWriteError);
    expect((error as Error).message).toBe(
      `loadNumber "${prefix}150" of acme was inserted by another writer of the loads table while this import ran; nothing was imported: run the import again`,
    );
    expect(await poNumbers()).toEqual(new Map([['theirs', 1]]));
    // Run again, it upserts every load, the other writer's included.
    expect(await importLoads(app.pool, 'acme', rows(file('ours')))).toEqual({ inserted: LOADS - 1, changed: 1, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });

  it('a load the other writer inserts and rolls back meanwhile is imported', async () => {
    await writer.query('BEGIN');
    await writer.query("INSERT INTO loads (customer_id, load_number, status, po_number) VALUES ($1::bigint, $2::text, 'Available', 'theirs')", [customerId, `${prefix}7`]);
    const importing = importLoads(app.pool, 'acme', rows(file('ours')));
    await importWaits();
    await writer.query('ROLLBACK');
    expect(await importing).toEqual({ inserted: LOADS, changed: 0, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });

  it('a load the other writer changes meanwhile is then changed by the import, whose values win', async () => {
    await importLoads(app.pool, 'acme', rows(file('first')));
    await writer.query('BEGIN');
    await writer.query("UPDATE loads SET po_number = 'theirs' WHERE customer_id = $1::bigint AND load_number = $2::text", [customerId, `${prefix}42`]);
    const importing = importLoads(app.pool, 'acme', rows(file('ours')));
    await importWaits();
    await writer.query('COMMIT');
    expect(await importing).toEqual({ inserted: 0, changed: LOADS, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });
});
