import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATE_TIME_LOAD_FIELDS,
  LOAD_FIELDS,
  NULLABLE_LOAD_FIELDS,
  type Load,
} from '../src/index.js';
import { assertConformingResponse, checkErrorBody, checkLoad, checkLoadPage, checkResponse, ContractViolationError } from '../src/validate.js';
import { aLoad, anyLoad } from './load-fixture.js';

const rateHeaders = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '1795000000' };
const json = { 'content-type': 'application/json; charset=utf-8' };
const aPage = (data: unknown[]) => ({ data, page: 1, pageSize: 100, totalCount: data.length, hasMore: false });
const messages = (violations: { path: string; message: string }[]) => violations.map((v) => `${v.path} ${v.message}`);

describe('a SPEC-conformant page', () => {
  it('is accepted, with and without a createdAt date-time on its rows', () => {
    expect(checkLoadPage(aPage([aLoad(), aLoad({ loadNumber: 'L-2', createdAt: '2026-09-01T00:00:00.000Z' })]))).toEqual([]);
  });

  it('is accepted for any conformant rows (property)', () => {
    fc.assert(fc.property(fc.array(anyLoad, { maxLength: 5 }), (rows) => checkLoadPage(aPage(rows)).length === 0));
  });

  it('is accepted as a whole 200 response with the rate headers', () => {
    expect(checkResponse({ status: 200, headers: new Headers({ ...json, ...rateHeaders }), body: aPage([aLoad()]) })).toEqual([]);
  });
});

describe('a load that breaks SPEC §2', () => {
  it('is rejected when it has a property the contract does not list', () => {
    expect(messages(checkLoad(aLoad({ carrier: 'ACME' })))).toEqual(['/ has a property the contract forbids: carrier']);
  });

  it('is rejected when a nullable field is left out instead of carrying null', () => {
    const { destinationWarehouse: _omitted, ...row } = aLoad();
    expect(messages(checkLoad(row))).toEqual(["/ must have required property 'destinationWarehouse'"]);
  });

  it('is rejected for every one of the 23 fields left out (property)', () => {
    fc.assert(
      fc.property(anyLoad, fc.constantFrom(...LOAD_FIELDS), (row, field) => {
        const { [field]: _omitted, ...rest } = row;
        return checkLoad(rest).some((v) => v.message.includes(`'${field}'`));
      }),
    );
  });

  it('is rejected when a date-time has no milliseconds', () => {
    expect(messages(checkLoad(aLoad({ updatedAt: '2026-10-01T08:41:00Z' })))).toEqual([
      '/updatedAt must be a UTC date-time with exactly three fractional digits and Z (got "2026-10-01T08:41:00Z")',
    ]);
  });

  it('is rejected when any date-time field is not UTC with three fractional digits and Z (property)', () => {
    const offShape = fc.constantFrom('2026-10-01T08:41:00.5Z', '2026-10-01T08:41:00.500+00:00', '2026-10-01T08:41:00.500000Z', '2026-10-01');
    fc.assert(
      fc.property(anyLoad, fc.constantFrom(...DATE_TIME_LOAD_FIELDS), offShape, (row, field, value) =>
        checkLoad({ ...row, [field]: value }).some((v) => v.path === `/${field}`),
      ),
    );
  });

  it('is rejected when its status is not on the closed list', () => {
    expect(messages(checkLoad(aLoad({ status: 'Shipped' as Load['status'] })))).toEqual([
      '/status must be one of PrePlanning, Available, Covered, Dispatched, Loading, InTransit, Unloading, Delivered, Claims, PenApp, Completed, OnHold, Cancelled',
    ]);
  });

  it('is rejected when createdAt is present but not a date-time in the response shape', () => {
    expect(messages(checkLoad(aLoad({ createdAt: 'yesterday' })))).toEqual([
      '/createdAt must be a UTC date-time with exactly three fractional digits and Z (got "yesterday")',
    ]);
  });

  it('is rejected when a non-nullable field is null', () => {
    expect(NULLABLE_LOAD_FIELDS).not.toContain('loadNumber');
    expect(messages(checkLoad(aLoad({ loadNumber: null as unknown as string })))).toContain('/loadNumber must be string');
  });

  it('is rejected when a pickup time is not HH:MM on a 24-hour clock', () => {
    expect(checkLoad(aLoad({ scheduledPickupTime: '24:00' }))).toHaveLength(1);
    expect(checkLoad(aLoad({ scheduledPickupTime: '8:30' }))).toHaveLength(1);
  });
});

describe('a page envelope that breaks SPEC §2', () => {
  it('is rejected with an extra property, a missing field, or a pageSize above 1000', () => {
    expect(messages(checkLoadPage({ ...aPage([]), next: 2 }))).toEqual(['/ has a property the contract forbids: next']);
    const { hasMore: _omitted, ...noHasMore } = aPage([]);
    expect(messages(checkLoadPage(noHasMore))).toEqual(["/ must have required property 'hasMore'"]);
    expect(messages(checkLoadPage({ ...aPage([]), pageSize: 1001 }))).toEqual(['/pageSize must be <= 1000']);
  });

  it('names the row that breaks the contract', () => {
    expect(messages(checkLoadPage(aPage([aLoad(), aLoad({ miles: 'far' })])))).toEqual([
      '/data/1/miles must match pattern "^-?[0-9]+(\\.[0-9]+)?$"',
    ]);
  });
});

describe('error bodies (SPEC §2, §7)', () => {
  it('on a 400 need details', () => {
    expect(checkErrorBody(400, { error: 'Invalid query', details: ['page must be >= 1'] })).toEqual([]);
    expect(messages(checkErrorBody(400, { error: 'Invalid query' }))).toEqual(["/ must have required property 'details'"]);
  });

  it('on any other status carry no details and no other property', () => {
    expect(checkErrorBody(401, { error: 'Unauthorized' })).toEqual([]);
    expect(messages(checkErrorBody(401, { error: 'Unauthorized', details: [] }))).toEqual([
      '/details must appear on 400 responses only, not on a 401',
    ]);
    expect(messages(checkErrorBody(500, { error: 'x', stack: 'at …' }))).toEqual(['/ has a property the contract forbids: stack']);
  });
});

describe('response headers (SPEC §4, §8)', () => {
  it('a 200 or 400 without an X-RateLimit header is rejected', () => {
    const { 'x-ratelimit-remaining': _omitted, ...headers } = rateHeaders;
    expect(messages(checkResponse({ status: 200, headers: { ...json, ...headers }, body: aPage([]) }))).toEqual([
      'header x-ratelimit-remaining is missing',
    ]);
  });

  it('a 429 needs an integer Retry-After as well as the rate headers', () => {
    const body = { error: 'Too many requests' };
    expect(checkResponse({ status: 429, headers: { ...json, ...rateHeaders, 'Retry-After': '12' }, body })).toEqual([]);
    expect(messages(checkResponse({ status: 429, headers: { ...json, ...rateHeaders, 'retry-after': '1.5' }, body }))).toEqual([
      'header retry-after must be an integer (got "1.5")',
    ]);
  });

  it('a body that is not application/json is rejected', () => {
    expect(messages(checkResponse({ status: 401, headers: { 'content-type': 'text/html' }, body: { error: 'x' } }))).toEqual([
      'header content-type must be application/json (got "text/html")',
    ]);
  });

  it('a status SPEC does not list for listLoads is rejected', () => {
    expect(messages(checkResponse({ status: 403, headers: json, body: { error: 'x' } }))).toEqual([
      'status 403 is not a status SPEC §4 lists for listLoads (200, 400, 401, 429, 500)',
    ]);
  });

  it('assertConformingResponse throws every violation at once', () => {
    const response = { status: 200, headers: json, body: aPage([aLoad({ updatedAt: 'now' })]) };
    expect(() => assertConformingResponse(response)).toThrow(ContractViolationError);
    try {
      assertConformingResponse(response);
    } catch (error) {
      expect((error as ContractViolationError).violations.length).toBe(5);
    }
  });
});
