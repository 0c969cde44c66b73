// The statements of listLoads read one feed, whichever index finds the page (feedAccessOf). A count kept from one of them is used with a page read
// by another (list.ts), so they must select the same rows: each reads them from feed_loads of the one
// query it is given ($1), its version from feed_state of that query's customer, and the page statements
// write the page's JSON alike. Checked on a database: every statement, over feeds and filters drawn at
// random, agrees with the others and with feed_loads called with the query's fields one by one.
import fc from 'fast-check';
import { LOAD_STATUSES } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedAccessOf, feedParameters, type FeedScope } from '../../src/loads/list.js';
import { countedByCounters } from '../../src/loads/count-statements.js';
import { COUNT_SQL, PAGE_STATEMENTS, type FeedAccess } from '../../src/loads/list-statements.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

const ELEVEN_ARGUMENTS_SQL = `
SELECT count(*)::text AS n, coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') AS json
  FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz,
                  $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l`;

describe('the statements of listLoads', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let scope: FeedScope;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
    const statuses = ['Available', 'Covered', 'Delivered'] as const;
    await app.load(
      'acme',
      Array.from({ length: 30 }, (_, index) =>
        aLoad(`S-${index}`, {
          status: statuses[index % 3],
          poNumber: index % 4 === 0 ? 'PO "quoted", \\ (odd)' : `PO-${index % 5}`,
          billingRefNumber: index % 2 === 0 ? null : 'B,1',
          scheduledPickupDate: `2026-05-${String(1 + (index % 10)).padStart(2, '0')}T08:00:00.000Z`,
          scheduledDeliveryDate: index % 7 === 0 ? null : `2026-05-${String(3 + (index % 10)).padStart(2, '0')}T08:00:00.000Z`,
        }),
      ),
    );
    const customerId = (await app.pool.query<{ id: string }>("SELECT id::text AS id FROM customers WHERE code = 'acme'")).rows[0]!.id;
    scope = { customerId, windowStart: new Date(Date.now() - 365 * 86_400_000), settledThrough: new Date(Date.now() + 60_000).toISOString() };
  });
  afterAll(async () => {
    await app?.close();
  });

  it('read the same rows, in the same order, from feed_loads of the query given, whatever the filters', async () => {
    expect((await app.pool.query(COUNT_SQL, feedParameters(scope, { page: 1, pageSize: 1 }))).rows[0]!.total_count).toBe('30');
    expect((await app.pool.query(COUNT_SQL, feedParameters(scope, { page: 1, pageSize: 1, poNumber: 'PO "quoted", \\ (odd)' }))).rows[0]!.total_count).toBe('8');
    const filters = fc.record(
      {
        statuses: fc.subarray([...LOAD_STATUSES], { minLength: 1 }),
        poNumber: fc.constantFrom('PO "quoted", \\ (odd)', 'PO-1', 'PO-2', 'none', ''),
        billingRefNumber: fc.constantFrom('B,1', 'none'),
        pickupFrom: fc.constantFrom('2026-05-01T00:00:00.000Z', '2026-05-04T08:00:00.000Z'),
        pickupTo: fc.constantFrom('2026-05-03T23:59:59.999Z', '2026-05-08T08:00:00.000Z'),
        deliveryFrom: fc.constantFrom('2026-05-05T00:00:00.000Z', '2026-05-07T08:00:00.000Z'),
        deliveryTo: fc.constantFrom('2026-05-09T23:59:59.999Z', '2026-05-30T00:00:00.000Z'),
      },
      { requiredKeys: [] },
    );
    const statusesAlone = fc.record({ statuses: fc.subarray([...LOAD_STATUSES], { minLength: 1 }) });
    // A pickup range, with or without statuses and a delivery bound: the pickup days access, drawn every time.
    const ranged = fc.record(
      {
        statuses: fc.subarray([...LOAD_STATUSES], { minLength: 1 }),
        pickupFrom: fc.constantFrom('2026-05-01T00:00:00.000Z', '2026-05-04T08:00:00.000Z'),
        deliveryTo: fc.constantFrom('2026-05-09T23:59:59.999Z', '2026-05-30T00:00:00.000Z'),
      },
      { requiredKeys: ['pickupFrom'] },
    );
    // A delivery range alone or with statuses, open on either side: the delivery days access.
    const delivered = fc.record(
      {
        statuses: fc.subarray([...LOAD_STATUSES], { minLength: 1 }),
        deliveryFrom: fc.constantFrom('2026-05-05T00:00:00.000Z', '2026-05-07T08:00:00.000Z'),
        deliveryTo: fc.constantFrom('2026-05-09T23:59:59.999Z', '2026-05-30T00:00:00.000Z'),
      },
      { requiredKeys: [] },
    ).filter((drawn) => drawn.deliveryFrom !== undefined || drawn.deliveryTo !== undefined);
    const accesses = new Set<FeedAccess>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(filters, statusesAlone, ranged, delivered), fc.integer({ min: 1, max: 4 }), async (drawnFilters, pageSize) => {
        const drawn: Partial<typeof filters extends fc.Arbitrary<infer T> ? T : never> = drawnFilters;
        const query = { ...drawn, page: 1, pageSize };
        const [literal] = feedParameters(scope, query);
        accesses.add(feedAccessOf(query));
        const { countedPage, countedPageByCounters, fromStart: pageFromStart, fromEnd: pageFromEnd } = PAGE_STATEMENTS[feedAccessOf(query)];
        const one = async (sql: string, values: unknown[]) => (await app.pool.query(sql, values)).rows[0]!;
        const expected = await one(ELEVEN_ARGUMENTS_SQL, [
          scope.customerId, scope.windowStart.toISOString(), null, drawn.statuses ?? null, drawn.pickupFrom ?? null, drawn.pickupTo ?? null,
          drawn.deliveryFrom ?? null, drawn.deliveryTo ?? null, drawn.poNumber ?? null, drawn.billingRefNumber ?? null, scope.settledThrough,
        ]);
        const count = await one(COUNT_SQL, [literal]);
        expect(count.total_count).toBe(expected.n);
        const pages: string[] = [];
        for (let page = 1; (page - 1) * pageSize < Number(expected.n); page += 1) {
          const counted = await one(countedPage, [literal, page, pageSize]);
          // The same page with the count read from the counters, where they answer the filters.
          if (countedByCounters(query)) expect(await one(countedPageByCounters, [literal, page, pageSize])).toEqual(counted);
          const fromStart = await one(pageFromStart, [literal, page, pageSize]);
          const rows = Math.min(pageSize, Number(expected.n) - (page - 1) * pageSize);
          const fromEnd = await one(pageFromEnd, [literal, Number(expected.n) - (page - 1) * pageSize - rows, rows]);
          expect(counted.total_count).toBe(expected.n);
          expect(fromStart.data).toBe(counted.data);
          expect(fromEnd.data).toBe(counted.data);
          for (const statement of [counted, fromStart, fromEnd]) expect([statement.feed_version, statement.latest_updated_at]).toEqual([count.feed_version, count.latest_updated_at]);
          pages.push(counted.data.slice(1, -1));
        }
        expect(pages.join(',')).toBe(expected.json);
      }),
      { numRuns: 60 },
    );
    expect([...accesses].sort()).toEqual(['delivery days', 'feed', 'pickup days', 'status']);
  });
});
