// The mock answers like SPEC.md and DECISIONS.md say the API does; every response passes the contract check.
import { RATE_WINDOW_MS, RATE_WINDOW_SECONDS, type LoadPage, type ValidationErrorBody } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { describe, expect, it } from 'vitest';
import { MOCK_API_KEY, createMockApi, createSimulatedClock } from '../src/mock/index.js';
import { loadInput, loadInputs } from './helpers.js';

function setup(options: Parameters<typeof createMockApi>[0] = {}) {
  const clock = createSimulatedClock();
  const mock = createMockApi({ clock, rateLimitPerMinute: 1000, ...options });
  async function get(query: string, key: string | null = MOCK_API_KEY) {
    const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
    const response = await mock.fetch(new Request(`${mock.baseUrl}/api/v1/loads${query}`, { headers }));
    const body: unknown = await response.json();
    expect(checkResponse({ status: response.status, headers: response.headers, body })).toEqual([]);
    return { status: response.status, headers: response.headers, body };
  }
  return { clock, mock, get };
}

describe('the mock API', () => {
  it('orders by (updatedAt, id), pages with hasMore, and answers a page past the end with no rows', async () => {
    const { mock, clock, get } = setup();
    mock.upsert(loadInputs(5, 10));
    await clock.advance(5);
    mock.upsert([loadInput(1)]);
    const first = (await get('?pageSize=4')).body as LoadPage;
    expect(first.data.map((row) => row.loadNumber)).toEqual(['L000010', 'L000011', 'L000012', 'L000013']);
    expect(first).toMatchObject({ page: 1, pageSize: 4, totalCount: 6, hasMore: true });
    const second = (await get('?pageSize=4&page=2')).body as LoadPage;
    expect(second.data.map((row) => row.loadNumber)).toEqual(['L000014', 'L000001']);
    expect(second.hasMore).toBe(false);
    expect((await get('?pageSize=4&page=9')).body).toEqual({ data: [], page: 9, pageSize: 4, totalCount: 6, hasMore: false });
  });

  it('clamps pageSize to its maximum and echoes the effective value', async () => {
    const { mock, get } = setup({ maxPageSize: 7 });
    mock.upsert(loadInputs(10));
    const page = (await get('?pageSize=5000')).body as LoadPage;
    expect(page.pageSize).toBe(7);
    expect(page.data).toHaveLength(7);
  });

  it('keeps updatedAt when a write changes nothing, and moves it when a value changes', async () => {
    const { mock, clock } = setup();
    mock.upsert([loadInput(1)]);
    const before = mock.loads()[0]!.updatedAt;
    await clock.advance(10);
    expect(mock.upsert([loadInput(1)])).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
    expect(mock.loads()[0]!.updatedAt).toBe(before);
    expect(mock.upsert([loadInput(1, { miles: '1.5' })])).toEqual({ inserted: 0, changed: 1, unchanged: 0 });
    expect(Date.parse(mock.loads()[0]!.updatedAt)).toBe(Date.parse(before) + 10);
  });

  it('filters: updatedSince, status (any of), poNumber, and the pickup window', async () => {
    const { mock, clock, get } = setup();
    mock.upsert(loadInputs(26));
    await clock.advance(1000);
    mock.upsert([loadInput(100, { status: 'Claims' })]);
    mock.upsert([loadInput(101, { scheduledPickupDate: '2020-01-01T00:00:00.000Z' })]);
    const since = (await get(`?updatedSince=${new Date(clock.now()).toISOString()}`)).body as LoadPage;
    expect(since.data.map((row) => row.loadNumber)).toEqual(['L000100']);
    const statuses = (await get('?status=Claims&status=PenApp')).body as LoadPage;
    expect(new Set(statuses.data.map((row) => row.status))).toEqual(new Set(['Claims', 'PenApp']));
    expect(((await get('?poNumber=PO-7')).body as LoadPage).data.map((row) => row.loadNumber)).toEqual(['L000007']);
    expect(mock.loads().some((load) => load.loadNumber === 'L000101')).toBe(false);
  });

  it.each([
    ['an unknown parameter', '?updatedsince=2026-01-01', 'updatedsince'],
    ['a repeated single-valued parameter', '?page=1&page=2', 'page'],
    ['an empty value', '?poNumber=', 'poNumber'],
    ['an unparseable date', '?updatedSince=yesterday', 'updatedSince'],
    ['a date-time without an offset', '?pickupFrom=2026-01-01T00:00:00', 'pickupFrom'],
    ['an unknown status', '?status=Lost', 'status'],
    ['a page of 0', '?page=0', 'page'],
  ])('%s is a 400 whose details name it, with the rate headers', async (_, query, name) => {
    const { get } = setup();
    const { status, headers, body } = await get(query);
    expect(status).toBe(400);
    expect((body as ValidationErrorBody).details.join(' ')).toMatch(new RegExp(`(^|\\W)${name}(\\W|$)`));
    expect(headers.get('x-ratelimit-remaining')).toBe('999');
  });

  it('a missing or unknown key is a 401 with WWW-Authenticate and no rate headers', async () => {
    const { get } = setup();
    for (const key of [null, 'lf_live_unknown']) {
      const { status, headers } = await get('', key);
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer');
      expect(headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it(`counts requests in a rolling ${RATE_WINDOW_SECONDS} s window; a refusal is a 429 with Retry-After and is not counted`, async () => {
    const { clock, get } = setup({ rateLimitPerMinute: 2 });
    expect((await get('')).headers.get('x-ratelimit-remaining')).toBe('1');
    await clock.advance(20_500);
    expect((await get('')).headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await get('');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil((RATE_WINDOW_MS - 20_500) / 1000)));
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((clock.now() - 20_500 + RATE_WINDOW_MS) / 1000)));
    await clock.advance(RATE_WINDOW_MS - 20_500);
    expect((await get('')).status).toBe(200);
  });

  it('serves each key its own limit', async () => {
    const { get } = setup({ keys: { [MOCK_API_KEY]: { rateLimit: 3 } } });
    expect((await get('')).headers.get('x-ratelimit-limit')).toBe('3');
  });

  it('refuses a load that breaks the contract, as the import does', () => {
    const { mock } = setup();
    expect(() => mock.upsert([loadInput(1, { miles: 'far' })])).toThrow(/miles/);
  });
});

describe('the mock through msw', () => {
  it('answers intercepted requests as its fetch does (setupServer, as a customer wires it)', async () => {
    const { setupServer } = await import('msw/node');
    const mock = createMockApi({ loads: loadInputs(3) });
    const server = setupServer(...mock.handlers);
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const response = await fetch(`${mock.baseUrl}/api/v1/loads?pageSize=2`, { headers: { Authorization: `Bearer ${MOCK_API_KEY}` } });
      const body: unknown = await response.json();
      expect(checkResponse({ status: response.status, headers: response.headers, body })).toEqual([]);
      expect(body).toMatchObject({ pageSize: 2, totalCount: 3, hasMore: true });
      expect((await fetch(`${mock.baseUrl}/api/v1/openapi.json`)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
