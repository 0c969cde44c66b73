// The mock is only worth testing against if it answers like the real thing: the same dataset and the
// same sequence of requests give the same statuses, headers and bodies (timestamps aside).
import { type Load, type LoadPage } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { describe, expect, it } from 'vitest';
import { createMockApi } from '../../src/mock/index.js';
import { loadInput, loadInputs } from '../helpers.js';
import { useTestServer } from './fixture.js';

const kit = useTestServer();
const LIMIT = 20;

interface Side {
  baseUrl: string;
  fetch(request: Request): Promise<Response>;
  key: string;
}

/** Each request: a query string (given the side's rows in order, for side-specific timestamps) and the key to send. */
const SEQUENCE: { name: string; query: (rows: Load[]) => string; auth?: 'none' | 'unknown' }[] = [
  { name: 'default page', query: () => '' },
  { name: 'small pages', query: () => '?pageSize=4' },
  { name: 'second page', query: () => '?pageSize=4&page=2' },
  { name: 'past the end', query: () => '?pageSize=4&page=99' },
  { name: 'status, repeated', query: () => '?status=Delivered&status=Covered' },
  { name: 'poNumber', query: () => '?poNumber=PO-3' },
  { name: 'clamped pageSize', query: () => '?pageSize=5000' },
  { name: 'updatedSince at a tie group', query: (rows) => `?updatedSince=${encodeURIComponent(rows[5]!.updatedAt)}&pageSize=3` },
  { name: 'pickup and delivery ranges', query: () => '?pickupTo=2099-12-31&deliveryFrom=2020-01-01&pickupFrom=2020-01-01T00:00:00Z' },
  { name: 'unknown parameter', query: () => '?updatedsince=2026-01-01' },
  { name: 'repeated page', query: () => '?page=1&page=2' },
  { name: 'empty value', query: () => '?poNumber=' },
  { name: 'unparseable date', query: () => '?updatedSince=yesterday' },
  { name: 'date-time without offset', query: () => '?pickupFrom=2026-01-01T00:00:00' },
  { name: 'a day that does not exist', query: () => '?updatedSince=2026-02-30T10:00:00Z' },
  { name: 'hour 24', query: () => '?pickupTo=2026-03-01T24:00:00Z' },
  { name: 'an offset whose + was not encoded', query: () => '?updatedSince=2026-01-01T00:00:00+14:00' },
  { name: 'a page size in exponent form', query: () => '?pageSize=1e400' },
  { name: 'unknown status', query: () => '?status=Lost' },
  { name: 'zero pageSize', query: () => '?pageSize=0' },
  { name: 'no key', query: () => '', auth: 'none' },
  { name: 'unknown key', query: () => '', auth: 'unknown' },
  ...Array.from({ length: 6 }, (_, index) => ({ name: `spending the window ${index + 1}`, query: () => '?pageSize=1' })),
];

async function answer(side: Side, rows: Load[], step: (typeof SEQUENCE)[number]) {
  const headers: Record<string, string> = {};
  if (step.auth !== 'none') headers.Authorization = `Bearer ${step.auth === 'unknown' ? 'lf_live_0000000000000000000000000000000000000000' : side.key}`;
  const response = await side.fetch(new Request(`${side.baseUrl}/api/v1/loads${step.query(rows)}`, { headers }));
  const body: unknown = await response.json();
  expect(checkResponse({ status: response.status, headers: response.headers, body }), step.name).toEqual([]);
  return { response, body };
}

/**
 * A response as both must agree on: rows in the same order without their timestamps (the mock stamps a
 * write at one instant, the server each row when it is written, so which neighbours tie differs), an
 * error body its keys and its details; the clock headers are checked apart.
 */
function comparable(response: Response, body: unknown) {
  const header = (name: string) => response.headers.get(name);
  let shape: unknown;
  if (response.status !== 200) {
    const error = body as { error: unknown; details?: string[] };
    shape = {
      keys: Object.keys(error).sort(),
      error: typeof error.error,
      // Both read the query with @loadfeed/spec/query, so a 400's details are the same words.
      details: error.details,
    };
  } else {
    const page = body as LoadPage;
    shape = {
      ...page,
      data: page.data.map(({ updatedAt: _updatedAt, ...row }) => row),
    };
  }
  return {
    status: response.status,
    contentType: header('content-type')?.split(';')[0],
    limit: header('x-ratelimit-limit'),
    remaining: header('x-ratelimit-remaining'),
    hasReset: header('x-ratelimit-reset') !== null,
    hasRetryAfter: header('retry-after') !== null,
    wwwAuthenticate: header('www-authenticate'),
    hasRequestId: header('x-request-id') !== null,
    body: shape,
  };
}

describe('the mock and the reference server', () => {
  it('answer the same sequence of requests the same way', async () => {
    const customer = await kit.customer(LIMIT);
    const writes = [
      loadInputs(5),
      [loadInput(6, { status: 'Delivered' })],
      [...loadInputs(6, 7), loadInput(13, { scheduledPickupDate: '2020-01-01T00:00:00.000Z' }), loadInput(14, { scheduledDeliveryDate: '2026-06-01T00:00:00.000Z' })],
    ];
    const mock = createMockApi({ keys: { [customer.key]: { rateLimit: LIMIT } } });
    for (const write of writes) {
      await kit.server.importLoads(customer.code, write);
      mock.upsert(write);
    }
    const serverSide: Side = { baseUrl: kit.server.baseUrl, fetch: (request) => fetch(request), key: customer.key };
    const mockSide: Side = { baseUrl: mock.baseUrl, fetch: (request) => mock.fetch(request), key: customer.key };
    const rowsOf = async (side: Side) => {
      const { body } = await answer(side, [], { name: 'rows', query: () => '?pageSize=100' });
      return (body as LoadPage).data;
    };
    const rows = { server: await rowsOf(serverSide), mock: await rowsOf(mockSide) };
    const statuses: number[] = [];
    for (const step of SEQUENCE) {
      const fromServer = await answer(serverSide, rows.server, step);
      const fromMock = await answer(mockSide, rows.mock, step);
      statuses.push(fromServer.response.status);
      expect(comparable(fromMock.response, fromMock.body), step.name).toEqual(
        comparable(fromServer.response, fromServer.body),
      );
      const reset = (response: Response) => Number(response.headers.get('x-ratelimit-reset') ?? 0);
      expect(Math.abs(reset(fromMock.response) - reset(fromServer.response)), `${step.name}: X-RateLimit-Reset`).toBeLessThanOrEqual(1);
    }
    // The sequence reaches every status SPEC §4 lists for a client's mistakes and the window's end.
    expect(new Set(statuses)).toEqual(new Set([200, 400, 401, 429]));
  });
});
