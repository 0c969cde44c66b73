import { RATE_WINDOW_MS, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { describePlan, planRun, rateHeaderNonsense, spending, waitBeforeSending } from '../src/budget.js';
import type { Exchange } from '../src/evidence.js';

const NOW = Date.parse('2026-11-22T04:00:00.000Z');

function exchange(overrides: Partial<Exchange> & { rate?: [number, number, number] }): Exchange {
  const { rate, ...rest } = overrides;
  return {
    id: 1,
    credential: 'primary',
    authorization: 'Bearer lf_live_…(masked)',
    method: 'GET',
    target: '/api/v1/loads',
    listLoads: true,
    sentAt: NOW - 20,
    receivedAt: NOW,
    status: 200,
    headers: rate ? { 'x-ratelimit-limit': String(rate[0]), 'x-ratelimit-remaining': String(rate[1]), 'x-ratelimit-reset': String(rate[2]) } : {},
    body: null,
    bodyExcerpt: '',
    violations: [],
    ...rest,
  };
}

describe('waitBeforeSending', () => {
  it('sends at once while the window has room', () => {
    expect(waitBeforeSending([exchange({ rate: [10, 3, NOW / 1000 + 30] })], 'primary', NOW)).toBe(0);
  });

  it('waits for X-RateLimit-Reset when nothing remains', () => {
    const wait = waitBeforeSending([exchange({ rate: [10, 0, NOW / 1000 + 30] })], 'primary', NOW + 10_000);
    expect(wait).toBeGreaterThanOrEqual(20_000);
    expect(wait).toBeLessThan(21_000);
  });

  it("reads the reset on the server's clock, from its Date header", () => {
    const serverAhead = exchange({ rate: [10, 0, NOW / 1000 + 30], headers: {} });
    serverAhead.headers = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 30), date: new Date(NOW + 20_000).toUTCString() };
    const wait = waitBeforeSending([serverAhead], 'primary', NOW);
    expect(wait).toBeGreaterThanOrEqual(10_000);
    expect(wait).toBeLessThan(11_000);
  });

  it('counts a later request without rate headers as spent', () => {
    const log = [exchange({ rate: [10, 1, NOW / 1000 + 30] }), exchange({ id: 2, status: 500 })];
    expect(waitBeforeSending(log, 'primary', NOW)).toBeGreaterThan(29_000);
  });

  it("ignores another key's window", () => {
    expect(waitBeforeSending([exchange({ credential: 'second', rate: [10, 0, NOW / 1000 + 30] })], 'primary', NOW)).toBe(0);
  });

  it('never waits longer than a window and a second', () => {
    expect(waitBeforeSending([exchange({ rate: [10, 0, NOW / 1000 + RATE_WINDOW_SECONDS + 1] })], 'primary', NOW)).toBeLessThanOrEqual(RATE_WINDOW_MS + 1_000);
  });
});

describe('rate headers that make no sense', () => {
  it('are named for what is wrong: a limit of 0, a negative or missing header, more remaining than the limit, a Reset an hour away', () => {
    expect(rateHeaderNonsense(exchange({ rate: [0, 0, NOW / 1000 + 30] }))).toMatch(/x-ratelimit-limit: 0 is a limit that admits no request/);
    expect(rateHeaderNonsense(exchange({ headers: { 'x-ratelimit-limit': '-5', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1' } }))).toMatch(/x-ratelimit-limit: -5/);
    expect(rateHeaderNonsense(exchange({}))).toMatch(/x-ratelimit-limit: \(missing\)/);
    expect(rateHeaderNonsense(exchange({ rate: [10, 11, NOW / 1000 + 30] }))).toMatch(/more than x-ratelimit-limit: 10/);
    expect(rateHeaderNonsense(exchange({ rate: [10, 0, NOW / 1000 + 3600] }))).toMatch(new RegExp(`not within the next ${RATE_WINDOW_SECONDS} s`));
    expect(rateHeaderNonsense(exchange({ rate: [10, 0, NOW / 1000 + 30] }))).toBeUndefined();
  });

  it('never make the pacing wait, and the plan refuses a limit below one', () => {
    expect(waitBeforeSending([exchange({ rate: [0, 0, NOW / 1000 + 30] })], 'primary', NOW)).toBe(0);
    expect(() => planRun({ limit: 0, remaining: 0, totalCount: 40, exhaust: true, secondKey: true, revokedKey: true })).toThrow(RangeError);
  });
});

describe('planRun', () => {
  const base = { limit: 10, remaining: 10, totalCount: 40, exhaust: true, secondKey: true, revokedKey: true };

  it('plans at most 60 requests for a full run against a key of 10 a minute', () => {
    const plan = planRun(base);
    expect(plan.requests).toBeLessThanOrEqual(60);
    expect(describePlan(plan)).toMatch(/^~\d+ requests, ~\d+ minutes? at 10\/min$/);
  });

  it('plans the minutes from the requests beyond what the window allows', () => {
    expect(planRun({ ...base, exhaust: false, limit: 600, remaining: 600 }).minutes).toBe(0);
    expect(describePlan(planRun({ ...base, exhaust: false, limit: 120, remaining: 120 }))).toMatch(/^~\d+ requests, no wait for the rate limit at 120\/min$/);
    expect(planRun({ ...base, exhaust: false }).minutes).toBeGreaterThanOrEqual(3);
  });
});

describe('spending', () => {
  it('counts requests by credential and status, telling the exhaust burst from unexpected 429s', () => {
    const spent = spending([
      exchange({ id: 1 }),
      exchange({ id: 2, status: 429, note: 'exhaust' }),
      exchange({ id: 3, status: 429 }),
      exchange({ id: 4, credential: 'none', status: 401 }),
    ]);
    expect(spent).toMatchObject({ requests: 4, unexpected429: 1, exhaustBurst: 1, byCredential: { primary: 3, none: 1 }, byStatus: { 200: 1, 429: 2, 401: 1 } });
  });
});
