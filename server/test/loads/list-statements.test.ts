// The four statements of listLoads read one feed. A count kept from one of them is used with a page read
// by another (list.ts), so they must select the same rows: each reads them from feed_loads of the one
// query it is given ($1), its version from feed_state of that query's customer, and the page statements
// write the page's JSON alike. Checked on a database: every statement, over feeds and filters drawn at
// random, agrees with the others and with feed_loads called with the query's fields one by one.
import fc from 'fast-check';
import { LOAD_STATUSES } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedParameters, type FeedScope } from '../../src/loads/list.js';
import { COUNT_SQL, COUNTED_PAGE_SQL, PAGE_FROM_END_SQL, PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';
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
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(filters, fc.integer({ min: 1, max: 4 }), async (drawn, pageSize) => {
        const query = { ...drawn, page: 1, pageSize };
        const [literal] = feedParameters(scope, query);
        const one = async (sql: string, values: unknown[]) => (await app.pool.query(sql, values)).rows[0]!;
        const expected = await one(ELEVEN_ARGUMENTS_SQL, [
          scope.customerId, scope.windowStart.toISOString(), null, drawn.statuses ?? null, null, null, null, null,
          drawn.poNumber ?? null, drawn.billingRefNumber ?? null, scope.settledThrough,
        ]);
        const count = await one(COUNT_SQL, [literal]);
        expect(count.total_count).toBe(expected.n);
        const pages: string[] = [];
        for (let page = 1; (page - 1) * pageSize < Number(expected.n); page += 1) {
          const counted = await one(COUNTED_PAGE_SQL, [literal, page, pageSize]);
          const fromStart = await one(PAGE_FROM_START_SQL, [literal, page, pageSize]);
          const rows = Math.min(pageSize, Number(expected.n) - (page - 1) * pageSize);
          const fromEnd = await one(PAGE_FROM_END_SQL, [literal, Number(expected.n) - (page - 1) * pageSize - rows, rows]);
          expect(counted.total_count).toBe(expected.n);
          expect(fromStart.data).toBe(counted.data);
          expect(fromEnd.data).toBe(counted.data);
          for (const statement of [counted, fromStart, fromEnd]) expect([statement.feed_version, statement.latest_updated_at]).toEqual([count.feed_version, count.latest_updated_at]);
          pages.push(counted.data.slice(1, -1));
        }
        expect(pages.join(',')).toBe(expected.json);
      }),
      { numRuns: 40 },
    );
  });
});
