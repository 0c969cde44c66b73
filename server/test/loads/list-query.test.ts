import Boom from '@hapi/boom';
import fc from 'fast-check';
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, LIST_LOADS_FILTERS, LIST_LOADS_PARAMETERS, LOAD_STATUSES, type FilterKind } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { parseListLoadsQuery, type LoadFilters } from '../../src/loads/list-query.js';

const MAX = 100;

function detailsOf(query: Record<string, string | string[]>): string[] {
  try {
    parseListLoadsQuery(query, MAX);
  } catch (error) {
    if (!Boom.isBoom(error) || error.output.statusCode !== 400) throw error;
    return (error.data as { details: string[] }).details;
  }
  throw new Error('expected a 400');
}

function parse(query: Record<string, string | string[]>): LoadFilters {
  return parseListLoadsQuery(query, MAX);
}

describe('listLoads query parameters', () => {
  it('defaults page and pageSize to the contract defaults', () => {
    expect(parse({})).toEqual({ page: DEFAULT_PAGE, pageSize: DEFAULT_PAGE_SIZE });
  });

  it("keeps the query's order of parameters and puts the defaults after them, page first, and the statuses last", () => {
    // The count cache's key hashes the filters in this order (as joi's schema makes them), however the query is read.
    expect(Object.keys(parse({}))).toEqual(['page', 'pageSize']);
    expect(Object.keys(parse({ poNumber: 'P', updatedSince: '2026-01-01' }))).toEqual(['poNumber', 'updatedSince', 'page', 'pageSize']);
    expect(Object.keys(parse({ status: 'Covered', pageSize: '5', poNumber: 'P' }))).toEqual(['pageSize', 'poNumber', 'page', 'statuses']);
  });

  it('knows exactly the parameters the contract lists', () => {
    // A value of each kind of filter the contract declares (LIST_LOADS_FILTERS).
    const byKind: Record<FilterKind, string> = { since: '2026-01-01', 'lower bound': '2026-01-01', 'upper bound': '2026-01-02', set: 'Covered', exact: 'P' };
    const sample: Record<string, string> = { page: '2', pageSize: '5', ...Object.fromEntries(LIST_LOADS_FILTERS.map(({ name, kind }) => [name, byKind[kind]])) };
    expect(Object.keys(sample).sort()).toEqual([...LIST_LOADS_PARAMETERS].sort());
    expect(() => parse(sample)).not.toThrow();
  });

  it('refuses an unknown parameter, naming it (a typo must not return everything)', () => {
    const details = detailsOf({ updatedsince: '2026-01-01' });
    expect(details).toHaveLength(1);
    expect(details[0]).toContain('"updatedsince"');
    expect(details[0]).toContain('updatedSince');
  });

  it('refuses a single-valued parameter given twice, naming it', () => {
    for (const name of LIST_LOADS_PARAMETERS.filter((parameter) => parameter !== 'status')) {
      const details = detailsOf({ [name]: ['1', '2'] });
      expect(details).toEqual([`${name} is given 2 times; only status may repeat`]);
    }
  });

  it('accepts status repeated and OR-combines the values, once each', () => {
    expect(parse({ status: ['Covered', 'Delivered', 'Covered'] }).statuses).toEqual(['Covered', 'Delivered']);
    expect(parse({ status: 'Covered' }).statuses).toEqual(['Covered']);
  });

  it('refuses an empty value of any parameter', () => {
    for (const name of LIST_LOADS_PARAMETERS) {
      expect(detailsOf({ [name]: '' })).toEqual([`${name} must not be empty`]);
    }
    expect(detailsOf({ status: ['Covered', ''] })).toEqual(['status must not be empty']);
  });

  it('refuses a status outside the closed list, listing the allowed ones', () => {
    const [message] = detailsOf({ status: 'covered' });
    expect(message).toContain('"covered"');
    for (const status of LOAD_STATUSES) expect(message).toContain(status);
  });

  it('gives one message per problem when several parameters are wrong', () => {
    const details = detailsOf({ page: '0', pageSize: 'x', updatedSince: 'yesterday', bogus: '1' });
    expect(details).toHaveLength(4);
    expect(details.some((detail) => detail.startsWith('page must be a whole number from 1 to'))).toBe(true);
    expect(details.some((detail) => detail.startsWith('pageSize must be'))).toBe(true);
    expect(details.some((detail) => detail.startsWith('updatedSince must be a date'))).toBe(true);
  });

  it('requires page and pageSize to be whole numbers of at least 1', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', 'Infinity', '1e400']) {
      expect(detailsOf({ page: bad })[0]).toMatch(/^page must be a whole number from 1 to 9007199254740991 \(got/);
      expect(detailsOf({ pageSize: bad })[0]).toMatch(/^pageSize must be a whole number of at least 1 \(larger than the maximum is fine: it clamps\) \(got/);
    }
  });

  it('quotes the value sent, not what it converts to', () => {
    expect(detailsOf({ pageSize: '1e400' })).toEqual([expect.stringMatching(/\(got "1e400"\)$/)]);
    expect(detailsOf({ page: '1e400' })).toEqual([expect.stringMatching(/\(got "1e400"\)$/)]);
    expect(detailsOf({ pageSize: '-1e400' })).toEqual([expect.stringMatching(/\(got "-1e400"\)$/)]);
    expect(detailsOf({ status: ['Covered', 'covered'] })).toEqual([expect.stringMatching(/\(got "covered"\)$/)]);
  });

  it('says to encode "+" as %2B when an offset\'s "+" arrived as a space', () => {
    for (const name of ['updatedSince', 'pickupFrom', 'pickupTo', 'deliveryFrom', 'deliveryTo']) {
      const [message] = detailsOf({ [name]: '2026-01-01T00:00:00 14:00' });
      expect(message).toContain('(got "2026-01-01T00:00:00 14:00")');
      expect(message).toContain('%2B');
    }
    expect(detailsOf({ updatedSince: '2026-01-01T00:00:00.123 05:30' })[0]).toContain('%2B');
    expect(detailsOf({ updatedSince: 'yesterday' })[0]).not.toContain('%2B');
    expect(parse({ updatedSince: '2026-01-01T00:00:00+14:00' }).updatedSince).toBe('2025-12-31T10:00:00.000Z');
  });

  it('refuses a page number too large to echo exactly, and takes it up to that limit', () => {
    expect(detailsOf({ page: '9007199254740992' })).toEqual(['page must be a whole number from 1 to 9007199254740991 (got "9007199254740992")']);
    expect(parse({ page: '9007199254740991' }).page).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('clamps pageSize to the server maximum, which the envelope echoes, however many digits it has', () => {
    expect(parse({ pageSize: '99999999999999999999' }).pageSize).toBe(MAX);
    expect(parse({ pageSize: '9007199254740993' }).pageSize).toBe(MAX);
    expect(parse({ pageSize: '5000' }).pageSize).toBe(MAX);
    expect(parse({ pageSize: String(MAX) }).pageSize).toBe(MAX);
    expect(parse({ pageSize: '7' }).pageSize).toBe(7);
  });

  it('reads a date alone as 00:00Z for a lower bound and as the whole day for an upper bound', () => {
    const filters = parse({ updatedSince: '2026-03-01', pickupFrom: '2026-03-01', pickupTo: '2026-03-01', deliveryFrom: '2026-03-02', deliveryTo: '2026-03-02' });
    expect(filters.updatedSince).toBe('2026-03-01T00:00:00.000Z');
    expect(filters.pickupFrom).toBe('2026-03-01T00:00:00.000Z');
    expect(filters.pickupTo).toBe('2026-03-01T23:59:59.999Z');
    expect(filters.deliveryFrom).toBe('2026-03-02T00:00:00.000Z');
    expect(filters.deliveryTo).toBe('2026-03-02T23:59:59.999Z');
  });

  it('accepts RFC 3339 date-times with Z or an offset, and refuses one without', () => {
    expect(parse({ updatedSince: '2026-03-01T10:00:00+02:00' }).updatedSince).toBe('2026-03-01T08:00:00.000Z');
    expect(parse({ updatedSince: '2026-03-01T10:00:00.5z' }).updatedSince).toBe('2026-03-01T10:00:00.500Z');
    expect(parse({ pickupTo: '2026-03-01T10:00:00Z' }).pickupTo).toBe('2026-03-01T10:00:00.000Z');
    expect(parse({ pickupTo: '2026-03-01 10:00:00-01:30' }).pickupTo).toBe('2026-03-01T11:30:00.000Z');
    for (const bad of ['2026-03-01T10:00:00', '2026-02-30', '2026-13-01', '20260301', '2026-03-01T24:00:00Z', '2026-03-01T10:00:00+24:00', 'now']) {
      expect(detailsOf({ updatedSince: bad })[0], bad).toMatch(/^updatedSince must be a date \(YYYY-MM-DD/);
    }
  });

  it('rounds sub-millisecond bounds so that they stay exact against millisecond timestamps', () => {
    expect(parse({ updatedSince: '2026-03-01T10:00:00.0001Z' }).updatedSince).toBe('2026-03-01T10:00:00.001Z');
    expect(parse({ pickupTo: '2026-03-01T10:00:00.0009Z' }).pickupTo).toBe('2026-03-01T10:00:00.000Z');
  });

  it('reads a query written the plain way to what the schema reads from the same values, keys in the same order', () => {
    // A page number or size with a leading zero is not plain, so the query that has one goes through
    // joi, which reads it as the same number: the two readings must agree in value and in key order (the
    // count cache hashes the filters as they come).
    const whole = fc.integer({ min: 1, max: 999_999_999_999_999 }).map(String);
    const instant = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((date) => date.toISOString());
    const bound = fc.oneof(
      instant,
      instant.map((text) => text.slice(0, 10)),
      instant.map((text) => text.replace('Z', '+05:30')),
      instant.map((text) => text.replace('Z', '9876-01:00')),
    );
    const status = fc.constantFrom(...LOAD_STATUSES);
    const text = fc.string({ minLength: 1 }).filter((value) => !value.includes('\u0000'));
    const byKind: Record<FilterKind, fc.Arbitrary<string | string[]>> = {
      since: bound, 'lower bound': bound, 'upper bound': bound, set: fc.oneof(status, fc.array(status, { minLength: 1, maxLength: 3 })), exact: text,
    };
    const values: Record<string, fc.Arbitrary<string | string[]>> = {
      page: whole, pageSize: whole, ...Object.fromEntries(LIST_LOADS_FILTERS.map(({ name, kind }) => [name, byKind[kind]])),
    };
    const query = fc
      .tuple(fc.shuffledSubarray([...LIST_LOADS_PARAMETERS], { minLength: 1 }), fc.constantFrom('page', 'pageSize'))
      .chain(([names, number]) => fc.tuple(...[...new Set([...names, number])].map((name) => values[name]!.map((value) => [name, value] as const))).map((entries) => ({ entries, number })));
    fc.assert(
      fc.property(query, ({ entries, number }) => {
        const plain = Object.fromEntries(entries);
        const throughSchema = { ...plain, [number]: `0${plain[number] as string}` };
        const read = parse(plain);
        expect(read).toStrictEqual(parse(throughSchema));
        expect(Object.keys(read)).toEqual(Object.keys(parse(throughSchema)));
      }),
    );
  });

  it('answers any query whatsoever with filters or a 400, never another error', () => {
    const name = fc.oneof(fc.constantFrom(...LIST_LOADS_PARAMETERS), fc.string());
    const value = fc.oneof(fc.string(), fc.constantFrom('', '0', '1', '2026-01-01', '2026-01-01T00:00:00Z', 'Covered', '0000-01-01', '9999-12-31'));
    fc.assert(
      fc.property(fc.dictionary(name, fc.oneof(value, fc.array(value, { minLength: 1, maxLength: 3 }))), (query) => {
        try {
          const filters = parseListLoadsQuery(query, MAX);
          expect(filters.pageSize).toBeLessThanOrEqual(MAX);
        } catch (error) {
          expect(Boom.isBoom(error) && error.output.statusCode === 400).toBe(true);
        }
      }),
    );
  });
});
