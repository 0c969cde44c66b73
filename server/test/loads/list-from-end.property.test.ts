// A page read from the end is the page read from the start: for any count, page and page size, the rows
// choosePageStatement has PAGE_FROM_END_SQL read (skip `after` from the end, take `rows`) are the rows
// PAGE_FROM_START_SQL would read, and the read chosen skips the fewer rows of the two.
// (list-from-end.test.ts holds the same to a table; oracle.test.ts holds both statements to the oracle.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choosePageStatement } from '../../src/loads/list.js';
import { PAGE_FROM_END_SQL, PAGE_FROM_START_SQL, PLANNED_PAGE_FROM_END_SQL, PLANNED_PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';

const scope = { customerId: '1', windowStart: new Date(0), settledThrough: new Date(0).toISOString() };

/** The rows [start, end) of the feed in ascending order; every empty read is the same read. */
const span = (start: number, end: number) => (end > start ? { start, end } : 'none');

describe('reading a page from the end', () => {
  it('reads the rows the page holds from the start, and skips no more rows than reading from the start would', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1000 }), (count, page, pageSize) => {
        // A query without filters has its page read by a planned statement; which read it is, is the
        // query's own statement, read when the planned one cannot serve the window.
        const { sql: planned, unplanned, values } = choosePageStatement(scope, { page, pageSize }, count);
        const sql = unplanned!;
        expect(planned).toBe(sql === PAGE_FROM_START_SQL ? PLANNED_PAGE_FROM_START_SQL : PLANNED_PAGE_FROM_END_SQL);
        const before = (page - 1) * pageSize;
        const fromStart = span(Math.min(before, count), Math.min(before + pageSize, count));
        const afterPage = Math.max(0, count - before - pageSize);
        if (sql === PAGE_FROM_START_SQL) {
          expect(values.slice(1)).toEqual([page, pageSize]);
          expect(before).toBeLessThanOrEqual(afterPage);
          return;
        }
        expect(sql).toBe(PAGE_FROM_END_SQL);
        const [after, rows] = values.slice(1) as [number, number];
        expect(span(count - after - rows, count - after)).toEqual(fromStart);
        expect(after).toBeLessThan(before);
      }),
      { numRuns: 2000 },
    );
  });
});
