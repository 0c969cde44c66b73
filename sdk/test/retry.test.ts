import fc from 'fast-check';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  DEFAULT_RETRY_POLICY,
  RateLimitError,
  ServerError,
  TimeoutError,
  backoffDelay,
  createClient,
  syncLoads,
  type ListLoadsParams,
} from '../src/index.js';
import { MOCK_API_KEY, createSimulatedClock } from '../src/mock/index.js';
import { withRetries } from '../src/retry.js';
import type { AttemptFetch, WaitEvent } from '../src/transport.js';
import { startFaultServer } from './fault-server.js';
import { createCopy, loadInputs, mockSetup } from './helpers.js';

/** A fetch that answers each call with the next of `outcomes` (then passes through), recording when it was called. */
function scripted(outcomes: (() => Response | Error)[], pass: (request: Request) => Promise<Response>, now: () => number) {
  const calls: number[] = [];
  const fetch = async (request: Request) => {
    calls.push(now());
    const outcome = outcomes[calls.length - 1];
    if (!outcome) return pass(request);
    const result = outcome();
    if (result instanceof Error) throw result;
    return result;
  };
  return { calls, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe('retries beneath the client', () => {
  it('a 429 is retried after exactly Retry-After seconds, then succeeds', async () => {
    const { mock, clock } = mockSetup({ mock: { rateLimitPerMinute: 3, loads: loadInputs(5) } });
    // Another user of the same key spends the window, so this client's first request is refused.
    const other = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch: (request) => mock.fetch(request) });
    for (let index = 0; index < 3; index += 1) await other.listLoads();
    await clock.advance(12_345);
    const sentAt: number[] = [];
    const statuses: number[] = [];
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch: async (request) => {
        sentAt.push(clock.now());
        const response = await mock.fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const page = await client.listLoads();
    expect(statuses).toEqual([429, 200]);
    // The window frees a window after the first of the other's requests; Retry-After rounds that up to a second.
    const retryAfter = Math.ceil((RATE_WINDOW_MS - 12_345) / 1000);
    expect(sentAt[1]! - sentAt[0]!).toBe(retryAfter * 1000);
    expect(page.data).toHaveLength(5);
  });

  it('when the deadline would pass before Retry-After, a RateLimitError says when to resume', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(1) } });
    const { calls, fetch } = scripted([() => json(429, { error: 'slow down' }, { 'Retry-After': '30' })], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    const start = clock.now();
    const error = await client.listLoads({}, { deadline: start + 10_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(30);
    expect((error as RateLimitError).resumeAt).toBe(start + 30_000);
    expect(calls).toHaveLength(1);
    expect(clock.now()).toBe(start);
  });

  it('a long Retry-After within retry.maxWaitMs (an hour by default) is honoured in full, not silently capped', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(1) } });
    const { calls, fetch } = scripted([() => json(429, { error: 'slow down' }, { 'Retry-After': '3600' })], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    await client.listLoads();
    expect(calls[1]! - calls[0]!).toBe(3_600_000);
  });

  it('5xx responses are retried with capped exponential backoff and full jitter, up to maxAttempts', async () => {
    const { mock, clock } = mockSetup();
    const { calls, fetch } = scripted(Array.from({ length: 10 }, () => () => json(503, { error: 'down' })), (request) => mock.fetch(request), clock.now);
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch,
      random: () => 0.999,
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 },
    });
    const error = await client.listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    expect(calls).toHaveLength(4);
    expect(calls.slice(1).map((time, index) => time - calls[index]!)).toEqual([99, 199, 249]);
  });

  it('network errors are retried and succeed when the network comes back', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(2) } });
    const reset = () => new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    const { calls, fetch } = scripted([reset, reset], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    const page = await client.listLoads();
    expect(page.data).toHaveLength(2);
    expect(calls).toHaveLength(3);
  });

  it('network errors that persist end in a ConnectionError after maxAttempts', async () => {
    const { mock, clock } = mockSetup();
    const { calls, fetch } = scripted(Array.from({ length: 10 }, () => () => new TypeError('fetch failed')), (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    await expect(client.listLoads()).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it('a server that does not answer within timeoutMs gives a TimeoutError, retried like a 5xx', async () => {
    const { mock, clock } = mockSetup();
    let attempts = 0;
    const silent = (request: Request) =>
      new Promise<Response>((_, reject) => {
        attempts += 1;
        request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch: silent, timeoutMs: 5_000, retry: { maxAttempts: 2 } });
    await expect(client.listLoads()).rejects.toBeInstanceOf(TimeoutError);
    expect(attempts).toBe(2);
  });

  it('a 400 is never retried', async () => {
    const { mock, clock } = mockSetup();
    const { calls, fetch } = scripted([], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    const error = await client.listLoads({ updatedSince: 'yesterday' } as ListLoadsParams).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).details.join(' ')).toContain('updatedSince');
    expect(calls).toHaveLength(1);
  });

  it('a 401 is never retried', async () => {
    const { mock, clock } = mockSetup();
    const { calls, fetch } = scripted([], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: 'lf_live_revoked', clock, fetch });
    await expect(client.listLoads()).rejects.toBeInstanceOf(AuthenticationError);
    expect(calls).toHaveLength(1);
  });

  it('an abort during a backoff sleep ends the call at once with an AbortError', async () => {
    const { mock, clock } = mockSetup({ autoAdvance: false });
    const { calls, fetch } = scripted([() => json(500, { error: 'boom' })], (request) => mock.fetch(request), clock.now);
    const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch });
    const controller = new AbortController();
    const pending = client.listLoads({}, { signal: controller.signal });
    await clock.untilSleeping();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(calls).toHaveLength(1);
    expect(clock.sleepers).toBe(0);
  });

  it('a middleware sees one logical request however many attempts it took', async () => {
    const { mock, clock } = mockSetup({ mock: { loads: loadInputs(1) } });
    const { calls, fetch } = scripted([() => json(500, { error: 'a' }), () => json(502, { error: 'b' })], (request) => mock.fetch(request), clock.now);
    const seen: number[] = [];
    const client = createClient({
      baseUrl: mock.baseUrl,
      apiKey: MOCK_API_KEY,
      clock,
      fetch,
      middleware: [{ onResponse: ({ response }) => void seen.push(response.status) }],
    });
    await client.listLoads();
    expect(calls).toHaveLength(3);
    expect(seen).toEqual([200]);
  });
});

describe('a body cut short is a connection error, retried like any other', () => {
  // Real sockets, the real clock, zero jitter: each backoff is 0 ms.
  const clientOn = (baseUrl: string, maxAttempts?: number) =>
    createClient({ baseUrl, apiKey: MOCK_API_KEY, random: () => 0, ...(maxAttempts ? { retry: { maxAttempts } } : {}) });

  it('a socket closed mid-body and JSON cut under a matching Content-Length are retried until a whole page comes', async () => {
    const server = await startFaultServer(['socket-closed-mid-body', 'json-cut-with-matching-length', 'ok']);
    const retries: string[] = [];
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, random: () => 0, logger: { onRetry: ({ reason }) => void retries.push(reason) } });
    const page = await client.listLoads();
    expect(page.data).toHaveLength(3);
    expect(server.served).toEqual(['socket-closed-mid-body', 'json-cut-with-matching-length', 'ok']);
    expect(retries).toEqual([expect.stringMatching(/cut short mid-body/), expect.stringMatching(/cut short: its \d+ bytes are not whole JSON/)]);
    expect(client.stats().requests).toBe(3);
  });

  it.each(['socket-closed-mid-body', 'json-cut-with-matching-length'] as const)('a body that stays cut (%s) ends in a ConnectionError after maxAttempts', async (fault) => {
    const server = await startFaultServer([fault, fault, fault]);
    const error = await clientOn(server.baseUrl, 3)
      .listLoads()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toContain(`127.0.0.1:${server.port}`);
    expect(server.served).toHaveLength(3);
  });

  it('syncLoads over cut bodies copies every row, and never sees a TypeError or SyntaxError', async () => {
    const server = await startFaultServer(['json-cut-with-matching-length', 'socket-closed-mid-body']);
    const copy = createCopy();
    const summary = await syncLoads({ client: clientOn(server.baseUrl), upsert: copy.upsert });
    expect(summary.rows).toBe(3);
    expect(summary.requests).toBe(3);
  });
});

describe('the retry layer alone', () => {
  const ok = () => new Response('{}', { status: 200 });
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('retries connection failures, timeouts and 5xx per the policy, telling onRetry and the call before each wait', async () => {
    const clock = createSimulatedClock();
    const script = [
      () => Promise.reject(new ConnectionError('reset')),
      () => Promise.reject(new TimeoutError('slow')),
      () => Promise.resolve(new Response('{}', { status: 502 })),
      () => Promise.resolve(ok()),
    ];
    const attempts: number[] = [];
    const inner: AttemptFetch = (_request, context) => (attempts.push(context.attempt), script[context.attempt - 1]!());
    const retries: string[] = [];
    const waits: WaitEvent[] = [];
    const retrying = withRetries(inner, { policy, clock, random: () => 0.5, onRetry: ({ reason, delayMs }) => void retries.push(`${reason} ${delayMs}`) });
    const start = clock.now();
    const response = await retrying(new Request('http://x.test/'), { onWait: (event) => void waits.push(event) });
    expect(response.status).toBe(200);
    expect(attempts).toEqual([1, 2, 3, 4]);
    expect(retries).toEqual(['reset 50', 'slow 100', 'status 502 200']);
    expect(waits.map(({ kind, delayMs, until }) => [kind, delayMs, until - start])).toEqual([
      ['retry', 50, 50],
      ['retry', 100, 150],
      ['retry', 200, 350],
    ]);
  });

  it('anything that is not a connection failure, a timeout or a retryable status passes straight through', async () => {
    const clock = createSimulatedClock();
    let calls = 0;
    const bug = new RangeError('a bug, not the network');
    const retrying = withRetries(() => (calls += 1, Promise.reject(bug)), { policy, clock, random: () => 0.5 });
    await expect(retrying(new Request('http://x.test/'))).rejects.toBe(bug);
    const refused = withRetries(() => (calls += 1, Promise.resolve(new Response('{}', { status: 401 }))), { policy, clock, random: () => 0.5 });
    expect((await refused(new Request('http://x.test/'))).status).toBe(401);
    expect(calls).toBe(2);
  });
});

describe('backoffDelay', () => {
  it('is uniform below the capped exponential step (full jitter)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const ceiling = Math.min(DEFAULT_RETRY_POLICY.maxDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1));
        const delay = backoffDelay(DEFAULT_RETRY_POLICY, attempt, () => random);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(ceiling);
      }),
    );
  });
});
