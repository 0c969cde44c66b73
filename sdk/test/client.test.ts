import { describe, expect, it } from 'vitest';
import { ContractError, DEFAULT_RETRY_POLICY, ServerError, createClient, syncLoads, type LoadRow } from '../src/index.js';
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

  it('an option given as undefined means its default: retry.maxAttempts: undefined stops after the default 5 attempts', async () => {
    const { mock, clock } = mockSetup();
    let attempts = 0;
    // Bounded: if the default were lost, attempt 20 would succeed instead of the call failing after 5.
    const fetch = async (request: Request) => (++attempts < 20 ? new Response('{"error":"down"}', { status: 503, headers: { 'Content-Type': 'application/json' } }) : mock.fetch(request));
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch, timeoutMs: undefined, retry: { maxAttempts: undefined, baseDelayMs: undefined } });
    await expect(client.listLoads()).rejects.toBeInstanceOf(ServerError);
    expect(attempts).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it.each([
    [{ retry: { maxAttempts: 0 } }, /option retry\.maxAttempts must be a whole number >= 1 \(got 0\)/],
    [{ retry: { maxAttempts: Infinity } }, /option retry\.maxAttempts must be a whole number/],
    [{ retry: { rateLimitMaxAttempts: 2.5 } }, /option retry\.rateLimitMaxAttempts must be a whole number/],
    [{ retry: { baseDelayMs: -1 } }, /option retry\.baseDelayMs must be a finite number of milliseconds >= 0/],
    [{ retry: { maxDelayMs: Number.NaN } }, /option retry\.maxDelayMs/],
    [{ retry: { maxAtempts: 3 } }, /unknown option retry\.maxAtempts/],
    [{ retry: 5 }, /option retry must be an object/],
    [{ timeoutMs: 0 }, /option timeoutMs must be a finite number of milliseconds >= 1/],
    [{ timeoutMs: '5000' }, /option timeoutMs/],
    [{ baseUrl: 'loads.example.com' }, /option baseUrl must be an http\(s\) URL/],
    [{ fetch: 'fetch' }, /option fetch must be a function/],
    [{ clock: { now: () => 0 } }, /option clock must be an object with now\(\) and sleep\(\)/],
    [{ signal: {} }, /option signal must be an AbortSignal/],
    [{ logger: { onRetry: true } }, /option logger\.onRetry must be a function/],
    [{ middleware: {} }, /option middleware must be an array/],
    [{ timeOutMs: 5000 }, /unknown option timeOutMs/],
  ])('a wrong option fails at once with a TypeError that names it: %j', (wrong, message) => {
    const create = () => createClient({ baseUrl: 'https://loads.example.com', apiKey: MOCK_API_KEY, ...(wrong as object) });
    expect(create).toThrow(TypeError);
    expect(create).toThrow(message);
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
