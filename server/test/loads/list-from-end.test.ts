// A page nearer the end of the feed than its start is read from the end: the feed index scanned
// backward, skipping only the rows after the page, so the deepest page costs what page 1 costs.
// (oracle.test.ts holds every page, either way, to the oracle.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choosePageStatement } from '../../src/loads/list.js';
import { PAGE_FROM_END_SQL, PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';
import { acmeId, planNodes, seedPlannerSizedFeed } from '../support/plans.js';
import { feedWindowStart } from '@loadfeed/spec';

/** Where the page starts and ends, counted from the end, for a feed of `total` rows. */
function readOf(total: number, page: number, pageSize: number): { sql: string; skipped?: unknown; rows?: unknown } {
  // The query's own statement: a query without filters is read by its planned twin (planned-page.test.ts).
  const { unplanned, values } = choosePageStatement({ customerId: '1', windowStart: new Date(0), settledThrough: new Date(0).toISOString() }, { page, pageSize }, total);
  const sql = unplanned!;
  return sql === PAGE_FROM_END_SQL ? { sql, skipped: values[1], rows: values[2] } : { sql };
}

describe('reading a page from the end', () => {
  it('reads a page from the end only when fewer rows follow it than precede it, the last partial page and pages past the end included', () => {
    const forward = { sql: PAGE_FROM_START_SQL };
    const fromEnd = (skipped: number, rows: number) => ({ sql: PAGE_FROM_END_SQL, skipped, rows });
    expect(readOf(0, 1, 10)).toEqual(forward);
    expect(readOf(1, 1, 10)).toEqual(forward);
    expect(readOf(0, 2, 10)).toEqual(fromEnd(0, 0));
    expect(readOf(1, 2, 1)).toEqual(fromEnd(0, 0));
    expect(readOf(2, 2, 1)).toEqual(fromEnd(0, 1));
    expect(readOf(25, 3, 10)).toEqual(fromEnd(0, 5));
    expect(readOf(25, 2, 10)).toEqual(fromEnd(5, 10));
    expect(readOf(30, 2, 10)).toEqual(forward);
    expect(readOf(31, 2, 10)).toEqual(forward);
    expect(readOf(29, 2, 10)).toEqual(fromEnd(9, 10));
    expect(readOf(25, 9, 10)).toEqual(fromEnd(0, 0));
    expect(readOf(25, Number.MAX_SAFE_INTEGER, 1000)).toEqual(fromEnd(0, 0));
  });

  describe('on a feed large enough for the planner to use the feed index', () => {
    const database = useTestDatabase();
    let app: TestApp;
    const TOTAL = 20_000;

    beforeAll(async () => {
      app = await startApp(database.url);
      await seedPlannerSizedFeed(app, TOTAL, 300);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('reads the deepest page by a backward index-only scan of the feed index that touches only the page\'s rows', async () => {
      const { rows: indexes } = await app.pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'loads' AND indexname LIKE 'loads_feed_since_%'");
      const lastPage = Math.ceil(TOTAL / 100);
      const { unplanned: sql, values } = choosePageStatement({ customerId: await acmeId(app), windowStart: feedWindowStart(new Date()), settledThrough: new Date().toISOString() }, { page: lastPage, pageSize: 100 }, TOTAL);
      expect(sql).toBe(PAGE_FROM_END_SQL);
      const nodes = await planNodes(app.pool, sql!, values, 'ANALYZE, TIMING OFF, FORMAT JSON');
      const feedScans = nodes.filter((node) => node['Index Name'] === indexes[0]!.name);
      expect(feedScans.map((node) => [node['Node Type'], node['Scan Direction'], node['Actual Rows']])).toEqual([['Index Only Scan', 'Backward', 100]]);
      expect(nodes.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
    });
  });
});
