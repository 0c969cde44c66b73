// An import beside another writer of the loads table (an ETL, psql, logical replication's apply worker)
// that writes the same customer's loads while the import runs: the import's upsert (src/loads/import-sql.ts,
// UPSERT_SQL, `INSERT ... ON CONFLICT DO UPDATE`) waits for the other writer's transaction and then writes
// every load of its file, the other writer's included, whether that writer inserted the load or changed
// it, committed or rolled back. The import's values win; it never fails for the other writer.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LoadInput } from '@loadfeed/spec';
import { customerIdOf } from '../../src/customers.js';
import { importLoads } from '../../src/loads/import.js';
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
    for (const deadline = Date.now() + 10_000; ; ) {
      if (Date.now() > deadline) throw new Error("the import's upsert never waited for the other writer");
      const { rows: waiting } = await app.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> $1::int AND wait_event_type = 'Lock' AND query LIKE '%WITH written AS%'`,
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

  const INSERT_THEIRS = "INSERT INTO loads (customer_id, load_number, status, po_number) VALUES ($1::bigint, $2::text, 'Available', 'theirs')";
  const CHANGE_THEIRS = "UPDATE loads SET po_number = 'theirs' WHERE customer_id = $1::bigint AND load_number = $2::text";

  /** Imports the file while the other writer's transaction, which ran `statement` on one load, is open; then ends it. */
  async function importBeside(statement: string, loadNumber: string, end: 'COMMIT' | 'ROLLBACK') {
    await writer.query('BEGIN');
    await writer.query(statement, [customerId, loadNumber]);
    const importing = importLoads(app.pool, 'acme', rows(file('ours')));
    await importWaits();
    await writer.query(end);
    return importing;
  }

  it('a load the other writer inserts and commits meanwhile is then changed by the import, whose values win', async () => {
    expect(await importBeside(INSERT_THEIRS, `${prefix}150`, 'COMMIT')).toEqual({ inserted: LOADS - 1, changed: 1, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });

  it('a load the other writer inserts and rolls back meanwhile is imported', async () => {
    expect(await importBeside(INSERT_THEIRS, `${prefix}7`, 'ROLLBACK')).toEqual({ inserted: LOADS, changed: 0, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });

  it('a load the other writer changes meanwhile is then changed by the import, whose values win', async () => {
    await importLoads(app.pool, 'acme', rows(file('first')));
    expect(await importBeside(CHANGE_THEIRS, `${prefix}42`, 'COMMIT')).toEqual({ inserted: 0, changed: LOADS, unchanged: 0 });
    expect(await poNumbers()).toEqual(new Map([['ours', LOADS]]));
  });
});
