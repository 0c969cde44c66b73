// A page read after the load that ended the page before (page-boundaries.ts) is the page read by skipping:
// pages by number from one query, in any order, with writes between them (stamps moved later, loads
// deleted, inserted, or moved out of the window) that make a kept boundary stale, are byte for byte the
// pages that listLoads reads without boundaries at the same moment. And reading pages in order does use
// the boundaries: each page after the first is read after its boundary.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { CountCache } from '../../src/loads/count-cache.js';
import type { LoadFilters } from '../../src/loads/list-query.js';
import { PAGE_STATEMENTS } from '../../src/loads/list-statements.js';
import { listLoads, type FeedScope } from '../../src/loads/list.js';
import { PageBoundaries } from '../../src/loads/page-boundaries.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { writeWithStamps } from '../support/stamps.js';

const LOADS = 60;
/** Few stamps for many loads: ties, which a boundary must cut between as the feed's order (updated_at, id) does. */
const STAMPS = ['2026-06-01T00:00:00.000Z', '2026-06-02T00:00:00.000Z', '2026-06-03T00:00:00.000Z', '2026-06-03T00:00:00.001Z', '2026-06-05T00:00:00.000Z'];
const AFTER_LOAD = new Set(Object.values(PAGE_STATEMENTS).map((statements) => statements.afterLoad));
const QUERIES: Omit<LoadFilters, 'page' | 'pageSize'>[] = [{}, { updatedSince: STAMPS[1]! }, { statuses: ['Available', 'Covered'] }, { pickupFrom: '2026-05-01T00:00:00.000Z' }];

const stepArbitrary = fc.oneof(
  fc.record({ read: fc.integer({ min: 1, max: 25 }) }),
  fc.record({ next: fc.constant(true) }),
  fc.record({ next: fc.constant(true) }),
  fc.record({ write: fc.constantFrom('restamp' as const, 'delete' as const, 'insert' as const, 'age out' as const), at: fc.nat({ max: LOADS * 2 }) }),
);

describe('pages read after the page before', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let scope: FeedScope;
  let inserted = 0;
  /** The statements of the reads with boundaries, to see that they are used. */
  const ran: string[] = [];
  const recording = { query: (text: string, values: unknown[]) => (ran.push(text), pool.query(text, values)) } as unknown as pg.Pool;

  /** Loads with the stamps given, written as given (the stamping trigger off, as an import of history is). */
  async function insertLoads(count: number): Promise<void> {
    await writeWithStamps(pool, async (client) => {
      for (let index = 0; index < count; index++) {
        inserted += 1;
        await client.query(
          `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, updated_at)
           VALUES ($1::bigint, $2::text, $3::load_status, $4::timestamptz, $5::timestamptz)`,
          [scope.customerId, `L${inserted}`, ['Available', 'Covered', 'Delivered'][inserted % 3], `2026-0${4 + (inserted % 3)}-10T00:00:00.000Z`, STAMPS[(inserted * 7) % STAMPS.length]],
        );
      }
    });
  }

  /** A write between two reads: the loads of the feed at `at` (modulo their number). */
  async function write(kind: 'restamp' | 'delete' | 'insert' | 'age out', at: number): Promise<void> {
    if (kind === 'insert') return insertLoads(1);
    const { rows } = await pool.query<{ id: string }>('SELECT id::text FROM loads WHERE customer_id = $1::bigint ORDER BY updated_at, id', [scope.customerId]);
    if (rows.length === 0) return;
    const id = rows[at % rows.length]!.id;
    if (kind === 'delete') await pool.query('DELETE FROM loads WHERE id = $1::bigint', [id]);
    else if (kind === 'age out') await pool.query("UPDATE loads SET scheduled_pickup_date = '2020-01-01T00:00:00Z' WHERE id = $1::bigint", [id]);
    else await pool.query('UPDATE loads SET miles = coalesce(miles, 0) + 1 WHERE id = $1::bigint', [id]);
  }

  beforeAll(async () => {
    await migrate(database.url);
    pool = createPool(database.url, { max: 4 });
    await addCustomer(pool, 'seeker');
    const customer = (await pool.query<{ id: string }>("SELECT id::text FROM customers WHERE code = 'seeker'")).rows[0]!;
    // Settled far ahead: every stamp, the trigger's own (today's) included, is read.
    scope = { customerId: String(customer.id), windowStart: new Date('2025-06-15T00:00:00.000Z'), settledThrough: '2100-01-01T00:00:00.000Z' };
    await insertLoads(LOADS);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('reading pages in order reads each page after the first after its boundary, and the pages are the skipping reads\'', async () => {
    const counts = new CountCache();
    const boundaries = new PageBoundaries({ seekFrom: 1 });
    for (const query of QUERIES) {
      ran.length = 0;
      let total = 0;
      for (let page = 1; page <= 7; page++) {
        const filters = { ...query, page, pageSize: 9 };
        const read = await listLoads(recording, counts, scope, filters, boundaries);
        expect(read).toBe(await listLoads(pool, new CountCache(), scope, filters));
        total = (JSON.parse(read) as { totalCount: number }).totalCount;
      }
      expect(total).toBeGreaterThan(9);
      // Every page that has rows, but the first.
      expect(ran.filter((text) => AFTER_LOAD.has(text))).toHaveLength(Math.min(7, Math.ceil(total / 9)) - 1);
    }
  });

  it('pages by number, in any order, with writes between them, are the pages read by skipping (property)', async () => {
    let seeks = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...QUERIES), fc.integer({ min: 1, max: 12 }), fc.array(stepArbitrary, { minLength: 1, maxLength: 25 }), async (query, pageSize, steps) => {
        const counts = new CountCache();
        const boundaries = new PageBoundaries({ seekFrom: 1 });
        let page = 0;
        for (const step of steps) {
          if ('write' in step) {
            await write(step.write, step.at);
            continue;
          }
          page = 'next' in step ? page + 1 : step.read;
          ran.length = 0;
          const filters = { ...query, page, pageSize };
          const read = await listLoads(recording, counts, scope, filters, boundaries);
          seeks += ran.filter((text) => AFTER_LOAD.has(text)).length;
          expect(read).toBe(await listLoads(pool, new CountCache(), scope, filters));
        }
      }),
      { numRuns: 150 },
    );
    expect(seeks).toBeGreaterThan(0);
  }, 120_000);
});
