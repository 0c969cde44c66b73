// Which statement reads a page next (choosePageStatement): the policy of listLoads in one function.
// The page's position decides between the start and the end (list-from-end.test.ts); this is the rest.
import { describe, expect, it } from 'vitest';
import { choosePageStatement, feedAccessOf } from '../../src/loads/list.js';
import { COUNTERS_COUNT_SQL } from '../../src/loads/count-statements.js';
import { feedQueryValue } from '../../src/loads/feed-query.js';
import { COUNT_SQL, PAGE_STATEMENTS } from '../../src/loads/list-statements.js';

const { countedPageByCounters: COUNTED_PAGE_SQL, fromStart: PAGE_FROM_START_SQL, fromEnd: PAGE_FROM_END_SQL } = PAGE_STATEMENTS.status;

const scope = { customerId: '7', windowStart: new Date('2025-11-25T00:00:00.000Z'), settledThrough: '2026-11-25T10:00:00.000Z' };
const choose = (page: number, knownCount: number | undefined, countMissed = false) => {
  const { kind, sql, values } = choosePageStatement(scope, { page, pageSize: 10, statuses: ['Available'] }, knownCount, countMissed);
  return { kind, sql, parameters: values.length };
};

describe('choosing the statement that reads a page', () => {
  it('without a known count: page 1 is counted and read in one statement, a later page is counted first', () => {
    expect(choose(1, undefined)).toEqual({ kind: 'counted page', sql: COUNTED_PAGE_SQL, parameters: 3 });
    expect(choose(2, undefined)).toEqual({ kind: 'count', sql: COUNTERS_COUNT_SQL, parameters: 1 });
    expect(choose(500, undefined)).toEqual({ kind: 'count', sql: COUNTERS_COUNT_SQL, parameters: 1 });
  });

  it('counts by the counters for no filter, statuses and a pickup range, else by the rows', () => {
    const counting = (filters: object) => choosePageStatement(scope, { page: 2, pageSize: 10, ...filters }, undefined).sql;
    for (const filters of [{}, { statuses: ['Available'] }, { pickupFrom: '2026-01-01T00:00:00.000Z' }, { statuses: ['Available'], pickupTo: '2026-01-01T00:00:00.000Z' }]) {
      expect(counting(filters)).toBe(COUNTERS_COUNT_SQL);
    }
    for (const filters of [{ updatedSince: '2026-01-01T00:00:00.000Z' }, { deliveryTo: '2026-01-01T00:00:00.000Z' }, { statuses: ['Available'], poNumber: 'P' }, { billingRefNumber: 'B' }]) {
      expect(counting(filters)).toBe(COUNT_SQL);
    }
  });

  it('once a count taken for the page has missed it to a write, the page is counted and read in one statement', () => {
    expect(choose(2, undefined, true)).toEqual({ kind: 'counted page', sql: COUNTED_PAGE_SQL, parameters: 3 });
  });

  it('with a known count, the page alone, from whichever end is nearer', () => {
    expect(choose(1, 1000)).toEqual({ kind: 'page', sql: PAGE_FROM_START_SQL, parameters: 3 });
    expect(choose(99, 1000)).toEqual({ kind: 'page', sql: PAGE_FROM_END_SQL, parameters: 3 });
  });

  it('finds the page by an exact match first, then a date range\'s days (the pickup range\'s first), then the statuses, else the feed in its order', () => {
    const access = (filters: object) => feedAccessOf({ page: 1, pageSize: 10, ...filters });
    expect(access({})).toBe('feed');
    expect(access({ updatedSince: '2026-01-01T00:00:00.000Z' })).toBe('feed');
    expect(access({ statuses: ['InTransit'], updatedSince: '2026-01-01T00:00:00.000Z' })).toBe('status');
    for (const [bound, days] of [['pickupFrom', 'pickup days'], ['pickupTo', 'pickup days'], ['deliveryFrom', 'delivery days'], ['deliveryTo', 'delivery days']] as const) {
      expect(access({ [bound]: '2026-01-01T00:00:00.000Z' })).toBe(days);
      expect(access({ [bound]: '2026-01-01T00:00:00.000Z', statuses: ['InTransit'] })).toBe(days);
      expect(access({ [bound]: '2026-01-01T00:00:00.000Z', poNumber: 'P' })).toBe('feed');
    }
    expect(access({ pickupFrom: '2026-01-01T00:00:00.000Z', deliveryTo: '2026-02-01T00:00:00.000Z' })).toBe('pickup days');
    expect(access({ statuses: ['InTransit'], billingRefNumber: 'B' })).toBe('feed');
    expect(choosePageStatement(scope, { page: 1, pageSize: 10, pickupTo: '2026-01-01T00:00:00.000Z' }, undefined).sql).toBe(PAGE_STATEMENTS['pickup days'].countedPageByCounters);
  });

  // How the value is made, field by field, is test/db/feed-query.test.ts's, against the type in a database.
  it('passes the scope and the filters as one feed_query value ($1), then the page', () => {
    const filters = { page: 3, pageSize: 10, statuses: ['Available' as const], poNumber: 'PO "1", \\ (a)' };
    const { values } = choosePageStatement(scope, filters, undefined, true);
    expect(values).toEqual([feedQueryValue(scope, filters), 3, 10]);
    expect(values[0]).toMatch(/^\("7","2025-11-25T00:00:00.000Z",,"\{\\"Available\\"\}",.*"PO \\"1\\", \\\\ \(a\)".*"2026-11-25T10:00:00.000Z"/);
  });
});
