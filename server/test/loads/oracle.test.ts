// The feed against an in-memory oracle: random customers, loads and queries; every page walk must
// return exactly the rows the same filters select in TypeScript, in the same order, and nothing of
// any other customer. Pages read in any order, from the start or from the end, with the count kept,
// stale or not yet taken, must each be the oracle's page, byte for byte.
import fc from 'fast-check';
import { LOAD_FIELDS, LOAD_STATUSES, type Load, type LoadPage, type LoadStatus, feedWindowStart } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTED_PAGE_SQL, COUNT_SQL, PAGE_FROM_END_SQL, PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';
import type { LoadInput } from '@loadfeed/spec';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { asChecked, startApp, testClock, type TestApp } from '../support/app.js';
import { writeWithStamps } from '../support/stamps.js';

const NOW = '2026-06-15T12:00:00.000Z';
const WINDOW_START = feedWindowStart(new Date(NOW)).getTime();
const DAY = 86_400_000;

/** Instants around the edges that matter (the window start, day boundaries) and some in between. */
const INSTANTS = [
  WINDOW_START - 1, WINDOW_START, WINDOW_START + 1, WINDOW_START + DAY - 1,
  Date.parse('2026-03-01T00:00:00.000Z'), Date.parse('2026-03-01T23:59:59.999Z'), Date.parse('2026-03-02T00:00:00.000Z'),
  Date.parse('2026-05-10T08:30:00.000Z'), Date.parse('2027-01-01T00:00:00.000Z'), Date.parse('2024-01-01T00:00:00.000Z'),
];
const DAYS = ['2025-06-15', '2026-03-01', '2026-03-02', '2026-05-10', '2027-01-01'];
const STAMPS = ['2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.001Z', '2026-06-10T09:00:00.000Z', '2026-06-14T23:59:59.999Z'];

const instant = fc.constantFrom(...INSTANTS).map((ms) => new Date(ms).toISOString());
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const loadArbitrary = fc.record({
  loadNumber: fc.constantFrom('L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8'),
  status: fc.constantFrom(...LOAD_STATUSES),
  scheduledPickupDate: maybe(instant),
  scheduledDeliveryDate: maybe(instant),
  poNumber: maybe(fc.constantFrom('PO-1', 'PO-2')),
  billingRefNumber: maybe(fc.constantFrom('BR-1', 'BR-2')),
  miles: maybe(fc.constantFrom('12.50', '7', '1000.125')),
  stamp: fc.constantFrom(...STAMPS),
});
type GeneratedLoad = typeof loadArbitrary extends fc.Arbitrary<infer T> ? T : never;

const bound = fc.oneof(fc.constantFrom(...DAYS), instant);
const queryArbitrary = fc.record(
  {
    updatedSince: fc.oneof(fc.constantFrom(...STAMPS), fc.constantFrom('2026-06-01', '2026-06-14')),
    status: fc.uniqueArray(fc.constantFrom<LoadStatus>(...LOAD_STATUSES), { minLength: 1, maxLength: 4 }),
    pickupFrom: bound,
    pickupTo: bound,
    deliveryFrom: bound,
    deliveryTo: bound,
    poNumber: fc.constantFrom('PO-1', 'PO-2'),
    billingRefNumber: fc.constantFrom('BR-1', 'BR-2'),
  },
  { requiredKeys: [] },
);
type GeneratedQuery = typeof queryArbitrary extends fc.Arbitrary<infer T> ? T : never;

const lower = (value: string) => (value.length === 10 ? Date.parse(`${value}T00:00:00.000Z`) : Date.parse(value));
const upper = (value: string) => (value.length === 10 ? Date.parse(`${value}T00:00:00.000Z`) + DAY - 1 : Date.parse(value));
const at = (value: string | null) => (value === null ? null : Date.parse(value));

function matches(load: Load, query: GeneratedQuery): boolean {
  const pick = at(load.scheduledPickupDate);
  const delivery = at(load.scheduledDeliveryDate);
  const within = (value: number | null, from?: string, to?: string) =>
    (from === undefined || (value !== null && value >= lower(from))) && (to === undefined || (value !== null && value <= upper(to)));
  return (
    pick !== null && pick >= WINDOW_START &&
    (query.updatedSince === undefined || Date.parse(load.updatedAt) >= lower(query.updatedSince)) &&
    (query.status === undefined || query.status.includes(load.status)) &&
    within(pick, query.pickupFrom, query.pickupTo) &&
    within(delivery, query.deliveryFrom, query.deliveryTo) &&
    (query.poNumber === undefined || load.poNumber === query.poNumber) &&
    (query.billingRefNumber === undefined || load.billingRefNumber === query.billingRefNumber)
  );
}

function queryString(query: GeneratedQuery, page: number, pageSize: number): string {
  const search = new URLSearchParams({ page: String(page), pageSize: String(pageSize) });
  for (const [name, value] of Object.entries(query)) {
    for (const one of [value].flat()) search.append(name, one);
  }
  return search.toString();
}

type OracleLoad = Load & { id: number };

/** The oracle's rows for the query, in (updatedAt, id) order. */
function oracleRows(expected: OracleLoad[], query: GeneratedQuery): Load[] {
  return expected
    .filter((load) => matches(load, query))
    .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id)
    .map(({ id: _id, ...load }) => load);
}

/** The page's JSON as the server must write it: the envelope's and each Load's fields in contract order. */
function oraclePagePayload(rows: Load[], page: number, pageSize: number): string {
  const data = rows.slice((page - 1) * pageSize, page * pageSize).map((load) => Object.fromEntries(LOAD_FIELDS.map((field) => [field, load[field]])));
  const hasMore = (page - 1) * pageSize + data.length < rows.length;
  return JSON.stringify({ data, page, pageSize, totalCount: rows.length, hasMore });
}

describe('the feed against an in-memory oracle', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let run = 0;
  /** Every statement the server ran, to see that each way of reading a page was taken. */
  const statements = new Set<string>();
  const clientQuery = pg.Client.prototype.query;

  beforeAll(async () => {
    app = await startApp(database.url, { clock: testClock(NOW) });
    // Seen on the connection, where a page's statements go (each on a connection checked out for it, db/cancellable.ts).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string') statements.add(args[0]);
      return (clientQuery as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof clientQuery;
  });
  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await app?.close();
  });

  /** Imports each customer's loads, then places their updatedAt stamps (ties included) for the test. */
  async function seed(customers: GeneratedLoad[][]): Promise<{ code: string; key: string; expected: OracleLoad[] }[]> {
    run += 1;
    const seeded = [];
    for (const [index, loads] of customers.entries()) {
      const code = `run${run}-c${index}`;
      await app.customer(code);
      const { key } = await app.key(code);
      const unique = [...new Map(loads.map((load) => [load.loadNumber, load])).values()];
      const inputs: LoadInput[] = unique.map(({ stamp: _stamp, ...load }) => load);
      await app.load(code, inputs);
      await writeWithStamps(app.pool, async (client) => {
        for (const load of unique) {
          await client.query(
            'UPDATE loads SET updated_at = $3::timestamptz WHERE load_number = $2::text AND customer_id = (SELECT id FROM customers WHERE code = $1::text)',
            [code, load.loadNumber, load.stamp],
          );
        }
      });
      const { rows } = await app.pool.query<{ id: string; load_number: string }>(
        'SELECT l.id::text, l.load_number FROM loads AS l JOIN customers AS c ON c.id = l.customer_id WHERE c.code = $1::text',
        [code],
      );
      const idOf = new Map(rows.map((row) => [row.load_number, Number(row.id)]));
      const expected = unique.map(({ stamp, ...load }) => ({
        originCity: null, originState: null, originZip: null, originWarehouse: null,
        destinationCity: null, destinationState: null, destinationZip: null, destinationWarehouse: null,
        scheduledPickupTime: null, scheduledDeliveryTime: null, tenderedDate: null, actualPickupDate: null,
        actualDeliveryDate: null, requestedDeliveryDate: null, totalCost: null,
        ...load,
        updatedAt: stamp,
        id: idOf.get(load.loadNumber)!,
      }));
      seeded.push({ code, key, expected });
    }
    return seeded;
  }

  async function walk(key: string, query: GeneratedQuery, pageSize: number): Promise<{ rows: Load[]; totalCounts: number[] }> {
    const rows: Load[] = [];
    const totalCounts: number[] = [];
    for (let page = 1; ; page += 1) {
      const response = await app.get(`/api/v1/loads?${queryString(query, page, pageSize)}`, key);
      expect(checkResponse(asChecked(response))).toEqual([]);
      const body = JSON.parse(response.payload) as LoadPage;
      expect(body.data.length).toBeLessThanOrEqual(pageSize);
      rows.push(...body.data);
      totalCounts.push(body.totalCount);
      expect(body.hasMore).toBe(rows.length < body.totalCount);
      if (!body.hasMore) return { rows, totalCounts };
    }
  }

  it('returns exactly the oracle\'s rows, in (updatedAt, id) order, over every page, for each customer alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(loadArbitrary, { maxLength: 12 }), { minLength: 2, maxLength: 3 }),
        fc.array(queryArbitrary, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        async (customers, queries, pageSize) => {
          const seeded = await seed(customers);
          for (const { key, expected } of seeded) {
            for (const query of [{}, ...queries]) {
              const oracle = oracleRows(expected, query);
              const { rows, totalCounts } = await walk(key, query, pageSize);
              expect(rows).toEqual(oracle);
              expect(new Set(totalCounts)).toEqual(new Set([oracle.length]));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  /** A write to the customer that no query sees (a load outside the window): it only moves the feed version. */
  async function moveFeedVersion(code: string): Promise<void> {
    await app.pool.query(
      `INSERT INTO loads (customer_id, load_number, status, miles)
       SELECT c.id, 'outside-window', 'Available', 1 FROM customers AS c WHERE c.code = $1::text
       ON CONFLICT (customer_id, load_number) DO UPDATE SET miles = loads.miles + 1`,
      [code],
    );
  }

  it('serves every page, read in any order, from the start or the end, as the oracle\'s page byte for byte, with the count kept, stale or not yet taken', async () => {
    statements.clear();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(loadArbitrary, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 2 }),
        fc.array(queryArbitrary, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.infiniteStream(fc.record({ page: fc.nat(), moveVersion: fc.boolean() })),
        async (customers, queries, pageSize, steps) => {
          const seeded = await seed(customers);
          for (const { code, key, expected } of seeded) {
            for (const query of [{}, ...queries]) {
              const oracle = oracleRows(expected, query);
              // Every page, the empty one past the end and one far past it, each once, in a random order.
              const lastPage = Math.max(1, Math.ceil(oracle.length / pageSize));
              const pages = [...Array.from({ length: lastPage + 1 }, (_, index) => index + 1), lastPage + 7];
              for (const position of pages.keys()) {
                const step = steps.next().value;
                const swap = position + (step.page % (pages.length - position));
                [pages[position], pages[swap]] = [pages[swap]!, pages[position]!];
                if (step.moveVersion) await moveFeedVersion(code);
                const response = await app.get(`/api/v1/loads?${queryString(query, pages[position]!, pageSize)}`, key);
                expect(response.statusCode).toBe(200);
                expect(response.payload).toBe(oraclePagePayload(oracle, pages[position]!, pageSize));
              }
            }
          }
        },
      ),
      { numRuns: 25 },
    );
    // Each way of reading a page was taken, so each was held to the oracle.
    expect([...statements]).toEqual(expect.arrayContaining([COUNTED_PAGE_SQL, PAGE_FROM_START_SQL, PAGE_FROM_END_SQL, COUNT_SQL]));
  });
});
