import { describe, expect, it } from 'vitest';
import { ContractError, createClient, syncLoads, type LoadRow } from '../src/index.js';
import { MOCK_API_KEY } from '../src/mock/index.js';
import { createCopy, loadInput, loadInputs, mockSetup } from './helpers.js';

/** Rewrites each 200 body the mock sends, to play a server that adds or drops fields. */
function rewriting(pass: (request: Request) => Promise<Response>, rewrite: (rows: Record<string, unknown>[]) => void) {
  return async (request: Request) => {
    const response = await pass(request);
    if (response.status !== 200) return response;
    const body = (await response.json()) as { data: Record<string, unknown>[] };
    rewrite(body.data);
    return new Response(JSON.stringify(body), { status: 200, headers: response.headers });
  };
}

describe('createClient', () => {
  it('sends the key only in the Authorization header, never in the URL', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(1) } });
    const requests: Request[] = [];
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      userAgent: 'acme-sync/2.1',
      fetch: (request) => {
        requests.push(request);
        return mock.fetch(request);
      },
    });
    await client.listLoads({ pageSize: 5 });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).not.toContain(MOCK_API_KEY);
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${MOCK_API_KEY}`);
    expect(requests[0]!.headers.get('user-agent')).toMatch(/^acme-sync\/2\.1 @loadfeed\/sdk/);
  });

  it('sends status once per value (form, explode) and gets the loads of any of them', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(40) } });
    const urls: string[] = [];
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch: (request) => (urls.push(request.url), mock.fetch(request)) });
    const page = await client.listLoads({ status: ['Delivered', 'InTransit'] });
    expect(new URL(urls[0]!).searchParams.getAll('status')).toEqual(['Delivered', 'InTransit']);
    expect(page.data.length).toBeGreaterThan(0);
    expect(new Set(page.data.map((row) => row.status))).toEqual(new Set(['Delivered', 'InTransit']));
  });

  it('pages() follows hasMore and loads() yields every row once', async () => {
    const { mock, client } = mockSetup({ mock: { loads: loadInputs(23), rateLimitPerMinute: 100 } });
    const pages = [];
    for await (const page of client.pages({ pageSize: 10 })) pages.push(page.data.length);
    expect(pages).toEqual([10, 10, 3]);
    const rows: LoadRow[] = [];
    for await (const row of client.loads({ pageSize: 10 })) rows.push(row);
    expect(rows.map((row) => row.loadNumber)).toEqual(mock.loads().map((load) => load.loadNumber));
  });

  it('tolerates a createdAt field and passes it through to upsert', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(3) } });
    const createdAt = '2025-12-01T08:00:00.000Z';
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch: rewriting((request) => mock.fetch(request), (rows) => rows.forEach((row) => (row.createdAt = createdAt))),
    });
    const copy = createCopy();
    await syncLoads({ client, upsert: copy.upsert });
    expect([...copy.rows.values()].map((row) => row.createdAt)).toEqual([createdAt, createdAt, createdAt]);
  });

  it('a row without loadNumber is a ContractError, and its page is never upserted', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(3) } });
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch: rewriting((request) => mock.fetch(request), (rows) => delete rows[1]!.loadNumber),
    });
    const upserted: LoadRow[][] = [];
    const saved: string[] = [];
    const error = await syncLoads({ client, upsert: (rows) => void upserted.push(rows), cursorStore: { load: () => undefined, save: (cursor) => void saved.push(cursor) } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations).toEqual([expect.objectContaining({ path: '/data/1/loadNumber' })]);
    expect(upserted).toEqual([]);
    expect(saved).toEqual([]);
  });

  it('refuses to start without a baseUrl or a key', () => {
    expect(() => createClient({ baseUrl: '', apiKey: MOCK_API_KEY })).toThrow(/baseUrl/);
    expect(() => createClient({ baseUrl: 'https://x.test', apiKey: '' })).toThrow(/apiKey/);
  });

  it('logger hooks see attempts and statuses but never the key', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: [loadInput(1)] } });
    const events: string[] = [];
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch: (request) => mock.fetch(request),
      logger: {
        onRequest: (event) => events.push(JSON.stringify(event)),
        onResponse: (event) => events.push(JSON.stringify(event)),
      },
    });
    await client.listLoads();
    expect(events).toHaveLength(2);
    expect(events.join('\n')).not.toContain(MOCK_API_KEY);
    expect(JSON.parse(events[1]!)).toMatchObject({ status: 200, attempt: 1 });
  });
});
