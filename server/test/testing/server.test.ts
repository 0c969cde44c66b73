import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/testing/index.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

async function fetchJson(url: string, key?: string): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('startTestServer', () => {
  const database = useTestDatabase();
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: 50 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves the loads a test imports, to a key it created, over real HTTP', async () => {
    await server.createCustomer('acme');
    const { key } = await server.createKey('acme');
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    const summary = await server.importLoads('acme', [
      { loadNumber: 'L1', status: 'Covered', scheduledPickupDate: soon, miles: '120.50' },
      { loadNumber: 'L2', status: 'Delivered', scheduledPickupDate: soon },
    ]);
    expect(summary).toEqual({ inserted: 2, changed: 0, unchanged: 0 });
    const response = await fetchJson(`${server.baseUrl}/api/v1/loads`, key);
    expect(checkResponse(response)).toEqual([]);
    expect(response.status).toBe(200);
    const page = response.body as { data: { loadNumber: string; miles: string | null }[]; totalCount: number };
    expect(page.totalCount).toBe(2);
    expect(page.data.map((load) => [load.loadNumber, load.miles])).toEqual([
      ['L1', '120.50'],
      ['L2', null],
    ]);
  });

  // Each row is stamped when it is written (DECISIONS: the row's own write, at millisecond precision): the
  // rows of one call may straddle a millisecond, so the test bounds the stamps instead of counting them.
  it('stamps each row of an importLoads call while the call runs, and keeps the stamp of rows that did not change', async () => {
    await server.createCustomer('stamps');
    const { key } = await server.createKey('stamps');
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    const started = Date.now();
    await server.importLoads('stamps', [
      { loadNumber: 'S1', status: 'Covered', scheduledPickupDate: soon },
      { loadNumber: 'S2', status: 'Covered', scheduledPickupDate: soon },
    ]);
    const ended = Date.now();
    const first = (await fetchJson(`${server.baseUrl}/api/v1/loads`, key)).body as { data: { loadNumber: string; updatedAt: string }[] };
    expect(first.data.map((load) => load.loadNumber)).toEqual(['S1', 'S2']);
    for (const load of first.data) {
      expect(Date.parse(load.updatedAt)).toBeGreaterThanOrEqual(started);
      expect(Date.parse(load.updatedAt)).toBeLessThanOrEqual(ended);
    }
    // importLoads resolved with its rows settled, so the database's clock is past their millisecond: the
    // next import's stamps are later.
    expect(
      await server.importLoads('stamps', [
        { loadNumber: 'S1', status: 'Covered', scheduledPickupDate: soon },
        { loadNumber: 'S2', status: 'Delivered', scheduledPickupDate: soon },
      ]),
    ).toEqual({ inserted: 0, changed: 1, unchanged: 1 });
    const second = (await fetchJson(`${server.baseUrl}/api/v1/loads`, key)).body as { data: { loadNumber: string; updatedAt: string }[] };
    expect(second.data.map((load) => load.loadNumber)).toEqual(['S1', 'S2']);
    expect(second.data[0]!.updatedAt).toBe(first.data[0]!.updatedAt);
    expect(second.data[1]!.updatedAt > first.data[1]!.updatedAt).toBe(true);
  });

  it('refuses a key once it is revoked', async () => {
    await server.createCustomer('revoked-co');
    const { id, key } = await server.createKey('revoked-co');
    expect((await fetchJson(`${server.baseUrl}/api/v1/loads`, key)).status).toBe(200);
    await server.revokeKey(id);
    expect((await fetchJson(`${server.baseUrl}/api/v1/loads`, key)).status).toBe(401);
  });

  it('gives a key its own rate limit', async () => {
    await server.createCustomer('limited');
    const { key } = await server.createKey('limited', { rateLimit: 1 });
    expect((await fetchJson(`${server.baseUrl}/api/v1/loads`, key)).status).toBe(200);
    const refused = await fetchJson(`${server.baseUrl}/api/v1/loads`, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('1');
  });

  it('lets two test servers share one database and one rate limit', async () => {
    const second = await startTestServer({ databaseUrl: database.url });
    try {
      await server.createCustomer('shared');
      const { key } = await server.createKey('shared', { rateLimit: 2 });
      const statuses = [];
      for (const base of [server.baseUrl, second.baseUrl, server.baseUrl, second.baseUrl]) {
        statuses.push((await fetchJson(`${base}/api/v1/loads`, key)).status);
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
    } finally {
      await second.stop();
    }
  });
});
