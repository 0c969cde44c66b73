import { DEFAULT_RATE_LIMIT, RATE_WINDOW_MS } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, createClient, syncLoads } from '../src/index.js';
import { MOCK_API_KEY, createSimulatedClock } from '../src/mock/index.js';
import { createPacer, withPacing } from '../src/pacing.js';
import type { WaitEvent } from '../src/transport.js';
import { createCopy, loadInputs, mockSetup } from './helpers.js';

/** Times (ms after the first) at which each request left, for a full sync of `rows` rows at the default limit. */
async function syncTimes(rows: number, serverClockOffsetMs = 0) {
  const { mock, clock } = mockSetup({ mock: { serverClockOffsetMs } });
  for (const input of loadInputs(rows)) mock.upsert([input]);
  const sentAt: number[] = [];
  const client = createClient({
    baseUrl: mock.baseUrl,
    apiKey: MOCK_API_KEY,
    clock,
    fetch: (request) => {
      sentAt.push(clock.now());
      return mock.fetch(request);
    },
  });
  const copy = createCopy();
  const summary = await syncLoads({ client, upsert: copy.upsert, pageSize: 10 });
  expect(copy.differences(mock.loads())).toEqual([]);
  return { times: sentAt.map((time) => time - sentAt[0]!), rateLimited: mock.stats.rateLimited, summary };
}

describe('pacing from the rate-limit headers', () => {
  it("a sync that is its key's only user never sees a 429, and spends no more than the window demands", async () => {
    const { times, rateLimited, summary } = await syncTimes(250);
    expect(rateLimited).toBe(0);
    // The limit's requests in each window: request n leaves at floor(n / limit) windows.
    expect(times).toEqual(times.map((_, index) => Math.floor(index / DEFAULT_RATE_LIMIT) * RATE_WINDOW_MS));
    expect(summary.quotaWaitMs).toBe(Math.floor((times.length - 1) / DEFAULT_RATE_LIMIT) * RATE_WINDOW_MS);
  });

  it('after Remaining: 0 the next request waits until Reset, not longer', async () => {
    const { times } = await syncTimes(120);
    expect(times[DEFAULT_RATE_LIMIT]).toBe(RATE_WINDOW_MS);
  });

  it("a server clock 45.25 s behind ours is corrected from the Date header: no 429, at most a second's extra wait", async () => {
    const { times, rateLimited } = await syncTimes(120, -45_250);
    expect(rateLimited).toBe(0);
    expect(times[DEFAULT_RATE_LIMIT]).toBeGreaterThanOrEqual(RATE_WINDOW_MS);
    expect(times[DEFAULT_RATE_LIMIT]).toBeLessThanOrEqual(RATE_WINDOW_MS + 1_000);
  });

  it("a server clock 90.6 s ahead of ours is corrected too: the wait is the window's, not 90 s longer", async () => {
    const { times, rateLimited } = await syncTimes(120, 90_600);
    expect(rateLimited).toBe(0);
    expect(times[DEFAULT_RATE_LIMIT]).toBeGreaterThanOrEqual(RATE_WINDOW_MS);
    expect(times[DEFAULT_RATE_LIMIT]).toBeLessThanOrEqual(RATE_WINDOW_MS + 1_000);
  });

  it('the quota snapshot shows the remaining requests and when the next may go', async () => {
    const { mock, client, clock } = mockSetup({ mock: { loads: loadInputs(3), rateLimitPerMinute: 2 } });
    await client.listLoads();
    expect(client.quota()).toMatchObject({ limit: 2, remaining: 1, nextRequestAt: clock.now() });
    await client.listLoads();
    expect(client.quota()).toMatchObject({ limit: 2, remaining: 0, nextRequestAt: clock.now() + RATE_WINDOW_MS });
    expect(mock.stats.rateLimited).toBe(0);
  });

  it('the pacing layer alone holds an attempt until Reset, saying so before it waits', async () => {
    const clock = createSimulatedClock();
    const start = clock.now();
    const sentAt: number[] = [];
    const seenAtWait: number[] = [];
    const resetSeconds = Math.ceil((start + 42_000) / 1000);
    const inner = async () => {
      sentAt.push(clock.now() - start);
      return new Response('{}', { status: 200, headers: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(resetSeconds) } });
    };
    const waits: WaitEvent[] = [];
    const paced = withPacing(inner, { pacer: createPacer(clock), clock, maxWaitMs: DEFAULT_RETRY_POLICY.maxWaitMs, onWait: () => void seenAtWait.push(clock.now() - start) });
    await paced(new Request('http://x.test/'), { attempt: 1 });
    await paced(new Request('http://x.test/'), { attempt: 1, onWait: (event) => void waits.push(event) });
    expect(sentAt).toEqual([0, resetSeconds * 1000 - start]);
    // Told at the start of the wait, not after it.
    expect(seenAtWait).toEqual([0]);
    expect(waits).toEqual([{ kind: 'quota', delayMs: resetSeconds * 1000 - start, until: resetSeconds * 1000, reason: "the key's 10 requests a minute are spent" }]);
  });
});
