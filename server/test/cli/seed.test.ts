import fc from 'fast-check';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { STATUS_ACTUALS } from '../../src/seed/loads.js';
import { CITIES } from '../../src/seed/places.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing/index.js';
import { cliOk, query } from './run-cli.js';

const AS_OF = '2026-06-15';

/** Every load as stored, without what the database assigns (ids and stamps). */
const LOADS_SQL = `SELECT c.code AS customer, c.name AS customer_name, to_jsonb(l) - 'id' - 'customer_id' - 'created_at' - 'updated_at' AS load
  FROM loads AS l JOIN customers AS c ON c.id = l.customer_id ORDER BY c.code, l.load_number`;

interface StoredLoad {
  customer: string;
  customer_name: string;
  load: Record<string, string | number | null>;
}

const databases: TestDatabase[] = [];
async function freshDatabase(): Promise<string> {
  const database = await createTestDatabase(inject('loadfeedAdminDatabaseUrl'));
  databases.push(database);
  await cliOk(['migrate'], { env: { DATABASE_URL: database.url } });
  return database.url;
}

async function seed(url: string, ...args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await cliOk(['seed', '--as-of', AS_OF, '--json', ...args], { env: { DATABASE_URL: url } })) as Record<string, unknown>;
}

describe('loadfeed-server seed', () => {
  afterAll(async () => {
    await Promise.all(databases.map((database) => database.drop()));
  });

  it('writes the same customers and loads for the same seed and day, and other ones for another seed', async () => {
    const [first, second, third] = [await freshDatabase(), await freshDatabase(), await freshDatabase()];
    await seed(first, '--customers', '3', '--loads', '600', '--seed', 'same');
    await seed(second, '--customers', '3', '--loads', '600', '--seed', 'same');
    await seed(third, '--customers', '3', '--loads', '600', '--seed', 'other');
    const rows = await query<StoredLoad>(first, LOADS_SQL);
    expect(rows).toHaveLength(600);
    expect(await query<StoredLoad>(second, LOADS_SQL)).toEqual(rows);
    expect(await query<StoredLoad>(third, LOADS_SQL)).not.toEqual(rows);
  });

  it('seeding again with the same seed changes nothing, not even updatedAt', async () => {
    const url = await freshDatabase();
    const first = await seed(url, '--customers', '2', '--loads', '300', '--seed', 'again');
    expect(first).toMatchObject({ inserted: 300, changed: 0, unchanged: 0, seed: 'again', asOf: AS_OF });
    expect(first.customers).toEqual([
      expect.objectContaining({ added: true, loads: 150 }),
      expect.objectContaining({ added: true, loads: 150 }),
    ]);
    const stamps = await query(url, 'SELECT load_number, updated_at FROM loads ORDER BY customer_id, load_number');
    const second = await seed(url, '--customers', '2', '--loads', '300', '--seed', 'again');
    expect(second).toMatchObject({ inserted: 0, changed: 0, unchanged: 300 });
    expect((second.customers as { added: boolean }[]).map((customer) => customer.added)).toEqual([false, false]);
    expect(await query(url, 'SELECT load_number, updated_at FROM loads ORDER BY customer_id, load_number')).toEqual(stamps);
  });

  it('writes realistic loads for any seed: real cities, consistent statuses, plausible miles and costs, most inside the window', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 50, max: 300 }), async (seedText, customers, loads) => {
        const url = await freshDatabase();
        await seed(url, '--customers', String(customers), '--loads', String(loads), `--seed=${seedText}`);
        const rows = await query<StoredLoad>(url, LOADS_SQL);
        expect(rows).toHaveLength(loads);
        expect(new Set(rows.map((row) => row.customer)).size).toBe(customers);
        const asOf = Date.parse(`${AS_OF}T00:00:00Z`);
        const windowStart = Date.parse('2025-06-15T00:00:00Z');
        let inWindow = 0;
        for (const { load } of rows) {
          expect(CITIES.some((city) => city.name === load.origin_city && city.state === load.origin_state)).toBe(true);
          expect(CITIES.some((city) => city.name === load.destination_city && city.state === load.destination_state)).toBe(true);
          const actuals = STATUS_ACTUALS[load.status as keyof typeof STATUS_ACTUALS];
          expect(load.actual_pickup_date !== null).toBe(actuals.pickedUp);
          expect(load.actual_delivery_date !== null).toBe(actuals.delivered);
          for (const actual of [load.actual_pickup_date, load.actual_delivery_date]) if (actual !== null) expect(Date.parse(String(actual))).toBeLessThanOrEqual(asOf);
          expect(Number(load.miles)).toBeGreaterThan(0);
          expect(Number(load.total_cost)).toBeGreaterThanOrEqual(450);
          if (Date.parse(String(load.scheduled_pickup_date)) >= windowStart) inWindow++;
        }
        expect(inWindow / loads).toBeGreaterThan(0.85);
      }),
      { numRuns: 3 },
    );
  }, 120_000);
});
