// Off-contract rows from a hostile server never reach upsert and never move the cursor: the light check of
// row-check.ts, through the client and the sync, and as a property over rows the contract accepts.
import fc from 'fast-check';
import { LOAD_FIELDS, LOAD_STATUSES, NULLABLE_LOAD_FIELDS, SETTLED_THROUGH_HEADER, type Load } from '@loadfeed/spec';
import { checkLoad } from '@loadfeed/spec/validate';
import { describe, expect, it } from 'vitest';
import { ContractError, createClient, memoryCursorStore, syncLoads, type LoadRow } from '../src/index.js';
import { MOCK_API_KEY } from '../src/mock/index.js';
import { rowViolations, MAX_REPORTED_VIOLATIONS } from '../src/row-check.js';
import { contractRow, pageOf, queryOf, sendJson, startHostileServer } from './hostile-server.js';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const bounds = { notBefore: undefined, notAfter: NOW + 86_400_000, notAfterReason: 'a day after now' };

/** A hostile server whose every page is `rows`, with `headers`. */
const serving = (rows: unknown[], headers: Record<string, string> = {}) =>
  startHostileServer((_request, response) => sendJson(response, 200, pageOf(rows), { Date: new Date(NOW).toUTCString(), ...headers }));

async function syncAgainst(baseUrl: string) {
  const upserted: LoadRow[] = [];
  const cursorStore = memoryCursorStore();
  const client = createClient({ baseUrl, apiKey: MOCK_API_KEY });
  const error = await syncLoads({ client, upsert: (rows) => void upserted.push(...rows), cursorStore }).catch((caught: unknown) => caught);
  return { error, upserted, cursor: cursorStore.cursor };
}

describe('rows are checked against the contract before upsert', () => {
  it('the row of the report (status Hacked, numeric miles, an extra property, updatedAt in year 9999) is a ContractError; nothing is upserted, no cursor saved', async () => {
    const hostile = contractRow(2, { status: 'Hacked' as Load['status'], miles: 120 as unknown as string, isAdmin: true, updatedAt: '9999-12-31T23:59:59.999Z' });
    const server = await serving([contractRow(1), hostile]);
    const { error, upserted, cursor } = await syncAgainst(server.baseUrl);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations).toEqual([
      { path: '/data/1/status', message: 'must be one of the 13 statuses (got "Hacked")' },
      { path: '/data/1/miles', message: 'must be a string or null' },
      { path: '/data/1/isAdmin', message: 'is not a Load field (a row may add only createdAt)' },
      { path: '/data/1/updatedAt', message: "9999-12-31T23:59:59.999Z is later than a day after the response's Date (2026-06-02T12:00:00.000Z): as a cursor it would hide every change until then" },
    ]);
    expect(upserted).toEqual([]);
    expect(cursor).toBeUndefined();
  });

  it("where the deployment says how far its feed is settled, an updatedAt past X-Feed-Settled-Through is refused, and one at it passes", async () => {
    const settled = '2026-06-01T11:59:58.000Z';
    const late = await serving([contractRow(1, { updatedAt: '2026-06-01T11:59:58.001Z' })], { [SETTLED_THROUGH_HEADER]: settled });
    const { error } = await syncAgainst(late.baseUrl);
    expect((error as ContractError).violations).toEqual([
      { path: '/data/0/updatedAt', message: `2026-06-01T11:59:58.001Z is later than the response's X-Feed-Settled-Through (${settled}): as a cursor it would hide every change until then` },
    ]);
    const onTime = await serving([contractRow(1, { updatedAt: settled })], { [SETTLED_THROUGH_HEADER]: settled });
    expect((await syncAgainst(onTime.baseUrl)).cursor).toBe(settled);
  });

  it('rows older than the request\'s updatedSince are refused: the server ignores updatedSince', async () => {
    const server = await startHostileServer((request, response) => {
      const since = queryOf(request.url!).get('updatedSince');
      sendJson(response, 200, pageOf([contractRow(1)], { pageSize: 1, totalCount: 2, hasMore: since === null }));
    });
    const { error, upserted } = await syncAgainst(server.baseUrl);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations[0]!.message).toMatch(/^is before the request's updatedSince \(.+\): the server ignores updatedSince/);
    expect(upserted).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('a createdAt date-time is tolerated; a createdAt that is not one is not', () => {
    expect(rowViolations([contractRow(1, { createdAt: '2025-12-01T08:00:00.000Z' })], bounds)).toEqual([]);
    expect(rowViolations([contractRow(1, { createdAt: 'yesterday' })], bounds)).toEqual([
      { path: '/data/0/createdAt', message: 'must be a UTC date-time with milliseconds and Z (got "yesterday")' },
    ]);
  });

  it('a missing field, a null where none is allowed, a bad state, time or decimal are each named', () => {
    const { poNumber: _dropped, ...missing } = contractRow(1);
    expect(rowViolations([missing], bounds)).toEqual([{ path: '/data/0/poNumber', message: 'is required (a field without a value is null)' }]);
    expect(rowViolations([contractRow(1, { status: null as unknown as Load['status'] })], bounds)).toEqual([{ path: '/data/0/status', message: 'must not be null' }]);
    expect(rowViolations([contractRow(1, { originState: 'Texas', scheduledPickupTime: '25:00', totalCost: '1,200.00' })], bounds).map((violation) => violation.path)).toEqual([
      '/data/0/originState',
      '/data/0/scheduledPickupTime',
      '/data/0/totalCost',
    ]);
    expect(rowViolations([contractRow(1, { tenderedDate: '2026-02-03 10:00:00Z' })], bounds).map((violation) => violation.path)).toEqual(['/data/0/tenderedDate']);
    expect(rowViolations([contractRow(1, { updatedAt: '2026-02-03T25:00:00.000Z' })], bounds)).toEqual([
      { path: '/data/0/updatedAt', message: '2026-02-03T25:00:00.000Z is not a real instant: it is the sync cursor' },
    ]);
  });

  it(`a page of a thousand bad rows reports at most ${MAX_REPORTED_VIOLATIONS} violations`, () => {
    const rows = Array.from({ length: 1000 }, (_, index) => contractRow(index, { status: 'Hacked' as Load['status'] }));
    expect(rowViolations(rows, bounds)).toHaveLength(MAX_REPORTED_VIOLATIONS);
  });

  describe('as a property', () => {
    const dateTime = fc.integer({ min: Date.parse('2000-01-01'), max: NOW }).map((ms) => new Date(ms).toISOString());
    const decimal = fc.tuple(fc.boolean(), fc.nat(), fc.option(fc.nat(), { nil: undefined })).map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`);
    const valueOf: Record<string, fc.Arbitrary<unknown>> = {
      status: fc.constantFrom(...LOAD_STATUSES),
      originState: fc.stringMatching(/^[A-Za-z]{2}$/),
      destinationState: fc.stringMatching(/^[A-Za-z]{2}$/),
      scheduledPickupTime: fc.stringMatching(/^([01][0-9]|2[0-3]):[0-5][0-9]$/),
      scheduledDeliveryTime: fc.stringMatching(/^([01][0-9]|2[0-3]):[0-5][0-9]$/),
      miles: decimal,
      totalCost: decimal,
      loadNumber: fc.string({ minLength: 1 }),
    };
    const dateFields = new Set(['scheduledPickupDate', 'scheduledDeliveryDate', 'tenderedDate', 'actualPickupDate', 'actualDeliveryDate', 'requestedDeliveryDate', 'updatedAt']);
    const row = fc.record(
      Object.fromEntries(
        LOAD_FIELDS.map((field) => {
          const value = valueOf[field] ?? (dateFields.has(field) ? dateTime : fc.string());
          return [field, (NULLABLE_LOAD_FIELDS as readonly string[]).includes(field) ? fc.option(value, { nil: null }) : value];
        }),
      ),
    );

    it('agrees with the schema validator on rows the contract accepts: none is refused', () => {
      fc.assert(
        fc.property(row, (load) => {
          expect(checkLoad(load)).toEqual([]);
          expect(rowViolations([load], bounds)).toEqual([]);
        }),
      );
    });

    it('refuses every row the schema validator refuses after one field is broken', () => {
      const broken = fc.constantFrom<unknown>(42, true, {}, [], 'Hacked', '', '9999-99-99', undefined);
      fc.assert(
        fc.property(row, fc.constantFrom(...LOAD_FIELDS, 'extra'), broken, (load, field, value) => {
          const changed: Record<string, unknown> = { ...load };
          if (value === undefined) delete changed[field];
          else changed[field] = value;
          fc.pre(checkLoad(changed).length > 0);
          expect(rowViolations([changed], bounds).length).toBeGreaterThan(0);
        }),
      );
    });
  });
});
