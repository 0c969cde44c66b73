import { describe, expect, it } from 'vitest';
import { DATE_TIME_LOAD_FIELDS, DEFAULT_PAGE_SIZE, LIST_LOADS_FILTERS, LIST_LOADS_PARAMETERS, LOAD_FIELDS, LOAD_STATUSES, loadMatcher, type FilterDeclaration } from '../src/index.js';
import { readListLoadsQuery } from '../src/query.js';
import { aLoad } from './load-fixture.js';

const read = (query: Record<string, string | string[]>) => {
  const result = readListLoadsQuery(query, 100);
  if ('details' in result) throw new Error(result.details.join('; '));
  return result.filters;
};

describe('the filters table (LIST_LOADS_FILTERS)', () => {
  it('declares every listLoads parameter but the paging, once, on a Load field', () => {
    expect(LIST_LOADS_FILTERS.map(({ name }) => name)).toEqual(LIST_LOADS_PARAMETERS.filter((name) => name !== 'page' && name !== 'pageSize'));
    expect(new Set(LIST_LOADS_FILTERS.map(({ key }) => key)).size).toBe(LIST_LOADS_FILTERS.length);
    for (const { field } of LIST_LOADS_FILTERS) expect(LOAD_FIELDS).toContain(field);
  });

  it('bounds only date-time fields, and closes a set over the field\'s list', () => {
    for (const { field, kind, values } of LIST_LOADS_FILTERS as readonly FilterDeclaration[]) {
      if (kind === 'since' || kind === 'lower bound' || kind === 'upper bound') expect(DATE_TIME_LOAD_FIELDS).toContain(field);
      if (kind === 'set') expect(values).toEqual(LOAD_STATUSES);
    }
  });

  it('reads each filter under its key, a set\'s values once each', () => {
    const filters = read({ status: ['Covered', 'Covered', 'Available'], poNumber: 'PO-77' });
    expect(filters).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE, statuses: ['Covered', 'Available'], poNumber: 'PO-77' });
    // The count cache's key hashes the filters in this order: the query's, the defaults after it, a set last.
    expect(Object.keys(filters)).toEqual(['poNumber', 'page', 'pageSize', 'statuses']);
  });
});

describe('loadMatcher: the matching the mock and the kit share', () => {
  const load = aLoad();

  it('admits a bound at the very millisecond of the field, inclusive on both sides', () => {
    expect(loadMatcher(read({ pickupFrom: load.scheduledPickupDate!, pickupTo: load.scheduledPickupDate! }))!(load)).toBe(true);
    expect(loadMatcher(read({ pickupFrom: '2026-10-01T00:00:00.001Z' }))!(load)).toBe(false);
    expect(loadMatcher(read({ pickupTo: '2026-09-30T23:59:59.999Z' }))!(load)).toBe(false);
    expect(loadMatcher(read({ updatedSince: load.updatedAt }))!(load)).toBe(true);
    expect(loadMatcher(read({ updatedSince: '2026-10-01T08:41:00.518Z' }))!(load)).toBe(false);
  });

  it('reads a date alone as the whole day: an upper bound to its last millisecond', () => {
    const late = aLoad({ scheduledDeliveryDate: '2026-10-03T23:59:59.999Z' });
    expect(loadMatcher(read({ deliveryFrom: '2026-10-03', deliveryTo: '2026-10-03' }))!(late)).toBe(true);
    expect(loadMatcher(read({ deliveryTo: '2026-10-02' }))!(late)).toBe(false);
  });

  it('admits no null field into a bound, ORs a set, and matches text exactly', () => {
    expect(loadMatcher(read({ deliveryFrom: '2000-01-01' }))!(aLoad({ scheduledDeliveryDate: null }))).toBe(false);
    expect(loadMatcher(read({ status: ['Covered', 'InTransit'] }))!(load)).toBe(true);
    expect(loadMatcher(read({ status: 'Covered' }))!(load)).toBe(false);
    expect(loadMatcher(read({ poNumber: 'PO-7' }))!(load)).toBe(false);
    expect(loadMatcher(read({ billingRefNumber: 'br-5' }))!(load)).toBe(false);
    expect(loadMatcher(read({ billingRefNumber: 'BR-5', poNumber: 'PO-77' }))!(load)).toBe(true);
  });

  it('combines filters with AND, leaves out the ones ignored, and is undefined without any', () => {
    expect(loadMatcher(read({ poNumber: 'PO-77', status: 'Covered' }))!(load)).toBe(false);
    expect(loadMatcher(read({ updatedSince: '2030-01-01' }), ['updatedSince'])).toBeUndefined();
    expect(loadMatcher(read({}))).toBeUndefined();
  });
});
