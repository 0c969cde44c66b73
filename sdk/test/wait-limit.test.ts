// Waits a hostile server asks for: a wait past the client's retry.maxWaitMs is a WaitTooLongError that
// says what the server asked for, instead of a timer that overflows into a burst of requests; and no wait
// of the system clock overflows setTimeout's 2^31 ms.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_POLICY, WaitTooLongError, createClient, syncLoads, systemClock } from '../src/index.js';
import { MAX_TIMER_MS } from '../src/clock.js';
import { MOCK_API_KEY, createSimulatedClock } from '../src/mock/index.js';
import { contractRow, pageOf, sendJson, startHostileServer } from './hostile-server.js';

describe('a wait longer than retry.maxWaitMs', () => {
  it('Retry-After: 999999999 on a 429 is a WaitTooLongError after one request, saying what the server asked', async () => {
    const server = await startHostileServer((_request, response) => sendJson(response, 429, '{"error":"slow down"}', { 'Retry-After': '999999999' }));
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY });
    const error = await syncLoads({ client, upsert: () => {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect(error).toMatchObject({ requestedMs: 999_999_999_000, limitMs: DEFAULT_RETRY_POLICY.maxWaitMs, askedBy: 'Retry-After: 999999999', status: 429 });
    expect((error as Error).message).toBe(
      'the server answered 429 and asked to wait 31 years before a retry (Retry-After: 999999999), longer than the client\'s retry.maxWaitMs (1 h)',
    );
    expect(server.requests).toHaveLength(1);
    expect(client.stats().retryWaitMs).toBe(0);
  });

  it('an X-RateLimit-Reset in milliseconds with Remaining: 0 is a WaitTooLongError before the next request, not a burst', async () => {
    const server = await startHostileServer((_request, response, { index }) =>
      sendJson(response, 200, pageOf([contractRow(index + 1)], { page: 1, hasMore: true, totalCount: 1000 }), {
        'X-RateLimit-Limit': '10',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': '99999999999',
        Date: new Date().toUTCString(),
      }),
    );
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY });
    const error = await syncLoads({ client, upsert: () => {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect((error as WaitTooLongError).askedBy).toBe('X-RateLimit-Reset: 99999999999');
    expect((error as Error).message).toMatch(
      /^the server's rate-limit headers ask to wait 3,1\d\d years for the next request \(X-RateLimit-Remaining: 0, X-RateLimit-Reset: 99999999999; the contract says epoch seconds\), longer than the client's retry\.maxWaitMs \(1 h\)$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a wait within retry.maxWaitMs is still honoured in full', async () => {
    const server = await startHostileServer((_request, response, { index }) =>
      index === 0 ? sendJson(response, 429, '{"error":"slow down"}', { 'Retry-After': '1' }) : sendJson(response, 200, pageOf([contractRow(1)])),
    );
    const clock = createSimulatedClock();
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, clock, retry: { maxWaitMs: 1_000 } });
    const start = clock.now();
    expect((await client.listLoads()).data).toHaveLength(1);
    expect(client.stats().retryWaitMs).toBe(1_000);
    expect(clock.now() - start).toBe(1_000);
  });
});

describe('the system clock', () => {
  afterEach(() => void vi.useRealTimers());

  it('a sleep past 2^31 ms lasts its whole length instead of overflowing into 1 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let woke = false;
    const length = MAX_TIMER_MS * 2 + 5_000;
    const sleeping = systemClock.sleep(length).then(() => void (woke = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS * 2);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(4_000);
    await sleeping;
    expect(woke).toBe(true);
  });

  it('an abort ends a chained sleep at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const controller = new AbortController();
    const sleeping = systemClock.sleep(MAX_TIMER_MS * 3, controller.signal);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 10);
    controller.abort();
    await expect(sleeping).rejects.toThrow('aborted');
  });
});
