// The kit never looks hung: while it waits for the rate limit it writes a line at least every 10 seconds
// ("waiting 48 s for the rate limit: request 23 of 51"). The sleep is injected: no test waits a minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../src/client.js';
import { ExchangeLog } from '../src/evidence.js';
import { NOTICE_EVERY_MS, waitForRateLimit, type Waiting } from '../src/waiting.js';

/** A clock that sleeps at once, and the lines said, each with the time it was said at. */
function fakeWaiting(): Waiting & { lines: { at: number; line: string }[]; now: () => number } {
  let now = 0;
  const lines: { at: number; line: string }[] = [];
  return {
    lines,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    say: (line) => lines.push({ at: now, line }),
  };
}

/** The longest stretch of a wait of `total` ms without a line. */
function longestSilence(lines: { at: number }[], total: number): number {
  const times = [...lines.map((line) => line.at), total];
  return Math.max(...times.slice(1).map((at, index) => at - times[index]!), times[0]!);
}

describe('a wait for the rate limit', () => {
  it('says how long it waits and which request waits, at its start and at least every 10 s', async () => {
    const waiting = fakeWaiting();
    await waitForRateLimit(48_000, { number: 23, planned: 51 }, waiting);
    expect(waiting.now()).toBe(48_000);
    expect(waiting.lines.map((line) => line.line)).toEqual([
      'waiting 48 s for the rate limit: request 23 of 51',
      'waiting 38 s for the rate limit: request 23 of 51',
      'waiting 28 s for the rate limit: request 23 of 51',
      'waiting 18 s for the rate limit: request 23 of 51',
      'waiting 8 s for the rate limit: request 23 of 51',
    ]);
    expect(longestSilence(waiting.lines, 48_000)).toBeLessThanOrEqual(NOTICE_EVERY_MS);
  });

  it('for every length up to a window and a second, never goes 10 s without a line and sleeps exactly that long', async () => {
    for (const ms of [1_000, 9_999, 10_000, 10_001, 30_500, 59_250, 61_000]) {
      const waiting = fakeWaiting();
      await waitForRateLimit(ms, { number: 3 }, waiting);
      expect(waiting.now(), String(ms)).toBe(ms);
      expect(waiting.lines[0]!.at).toBe(0);
      expect(longestSilence(waiting.lines, ms), String(ms)).toBeLessThanOrEqual(NOTICE_EVERY_MS);
      expect(waiting.lines[0]!.line).toBe(`waiting ${Math.ceil(ms / 1000)} s for the rate limit: request 3`);
    }
  });

  it('passes over the margin after a reset in silence', async () => {
    const waiting = fakeWaiting();
    await waitForRateLimit(250, { number: 1 }, waiting);
    await waitForRateLimit(0, { number: 1 }, waiting);
    expect(waiting.now()).toBe(250);
    expect(waiting.lines).toEqual([]);
  });
});

describe("the kit's sender", () => {
  let folder: string | undefined;
  afterEach(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('says it waits when the rate headers leave nothing, with the request number and the plan', async () => {
    folder = mkdtempSync(join(tmpdir(), 'kit-waiting-'));
    const log = ExchangeLog.start(join(folder, 'exchanges.json'));
    log.setPlan({ requests: 51 });
    const now = Date.now();
    // 22 exchanges so far; the last left the window empty until a Reset 47-48 s away (whole seconds, rounded
    // down from now so that the wait, with the 250 ms margin, is 47.25-48.25 s whatever the clock's fraction).
    for (let id = 1; id <= 22; id += 1) {
      log.record({
        credential: 'primary',
        authorization: null,
        listLoads: true,
        method: 'GET',
        target: `/api/v1/loads?page=${id}`,
        sentAt: now,
        receivedAt: now,
        status: 200,
        headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': id === 22 ? '0' : '5', 'x-ratelimit-reset': String(Math.floor(now / 1000) + 48) },
        body: null,
        bodyExcerpt: '',
        violations: [],
      });
    }
    const context = {
      fetch: async () => ({ text: async () => '{}', status: () => 200, headers: () => ({}) }),
    } as unknown as Pick<APIRequestContext, 'fetch'>;
    const waiting = fakeWaiting();
    const sender = createSender(context, { baseUrl: 'http://127.0.0.1:1', keys: { primary: 'lf_live_x' }, reportDir: folder, exhaust: false }, log, () => {}, waiting);
    await sender.list('primary', { page: 99 });
    expect(waiting.lines[0]!.line).toMatch(/^waiting (48|49) s for the rate limit: request 23 of 51$/);
    expect(waiting.lines.length).toBe(5);
    expect(longestSilence(waiting.lines, waiting.now())).toBeLessThanOrEqual(NOTICE_EVERY_MS);
  });
});
