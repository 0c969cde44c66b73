import { RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import type { ServerInjectResponse } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { asChecked, startApp, type TestApp } from '../support/app.js';

function rate(response: ServerInjectResponse): { status: number; limit?: string; remaining?: string; reset?: string; retryAfter?: string } {
  const headers = response.headers;
  const value = (name: string) => (headers[name] === undefined ? undefined : String(headers[name]));
  const result: ReturnType<typeof rate> = { status: response.statusCode };
  for (const [field, name] of [['limit', 'x-ratelimit-limit'], ['remaining', 'x-ratelimit-remaining'], ['reset', 'x-ratelimit-reset'], ['retryAfter', 'retry-after']] as const) {
    const header = value(name);
    if (header !== undefined) result[field] = header;
  }
  return result;
}

/** A response's Date, in Unix epoch seconds. */
const dateOf = (response: ServerInjectResponse) => Date.parse(String(response.headers.date)) / 1000;

describe('the per-key rate limit', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let twin: TestApp;

  beforeAll(async () => {
    // Requests wait in the concurrency gate as long as it takes on a busy machine, rather than a 503.
    const env = { RATE_LIMIT_PER_MINUTE: '3', MAX_QUEUE_WAIT_MS: '60000' };
    app = await startApp(database.url, { env });
    // A second instance on the same database: the count must be one (skewed-clocks.test.ts runs two
    // with clocks 90 s apart; window-clock.test.ts moves the database's clock).
    twin = await startApp(database.url, { env });
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
    await twin?.close();
  });

  it(`counts a rolling ${RATE_WINDOW_SECONDS} s on the database clock: Remaining, Reset at the first request's exit, Retry-After, and the Date they are computed at`, async () => {
    const { key } = await app.key('acme');
    const responses = [];
    for (const server of [app, twin, app, twin]) responses.push(await server.get('/api/v1/loads', key));
    const rates = responses.map(rate);
    expect(rates.map(({ status, limit, remaining }) => [status, limit, remaining])).toEqual([[200, '3', '2'], [200, '3', '1'], [200, '3', '0'], [429, '3', '0']]);
    // The first request was counted within the second its response's Date names; it leaves a window later.
    const firstCounted = dateOf(responses[0]!);
    const reset = Number(rates[0]!.reset);
    expect([firstCounted + RATE_WINDOW_SECONDS, firstCounted + RATE_WINDOW_SECONDS + 1]).toContain(reset);
    expect(rates.map((each) => Number(each.reset))).toEqual([reset, reset, reset, reset]);
    // Retry-After counts from the refusal's Date to that exit, to within the Date's rounding.
    const retryAfter = Number(rates[3]!.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Math.abs(dateOf(responses[3]!) + retryAfter - reset)).toBeLessThanOrEqual(1);
    expect(checkResponse(asChecked(responses[3]!))).toEqual([]);
  });

  it('counts a 400 and puts the rate headers on it', async () => {
    const { key } = await app.key('acme');
    const invalid = await app.get('/api/v1/loads?page=0', key);
    expect(rate(invalid)).toMatchObject({ status: 400, limit: '3', remaining: '2' });
    expect([RATE_WINDOW_SECONDS, RATE_WINDOW_SECONDS + 1]).toContain(Number(rate(invalid).reset) - dateOf(invalid));
    expect(checkResponse(asChecked(invalid))).toEqual([]);
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 200, remaining: '1' });
  });

  it('checks the limit before validation: a refused invalid request is a 429, not a 400', async () => {
    const { key } = await app.key('acme', { rateLimit: 1 });
    await app.get('/api/v1/loads', key);
    expect((await app.get('/api/v1/loads?page=0', key)).statusCode).toBe(429);
  });

  it('does not count a 401', async () => {
    const { id, key } = await app.key('acme');
    await app.get('/api/v1/loads', `${key}x`);
    await app.get('/api/v1/loads', undefined);
    const { rows } = await app.pool.query('SELECT coalesce(sum(cardinality(stamps)), 0)::int AS n FROM rate_limit_windows WHERE key_id = $1::uuid', [id]);
    expect(rows[0].n).toBe(0);
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 200, remaining: '2' });
  });

  it('uses the server default for keys without a limit and a key\'s own limit when it has one', async () => {
    const plain = await app.key('acme');
    const generous = await app.key('acme', { rateLimit: 500 });
    expect(rate(await app.get('/api/v1/loads', plain.key)).limit).toBe('3');
    expect(rate(await app.get('/api/v1/loads', generous.key))).toMatchObject({ limit: '500', remaining: '499' });
  });

  it('keeps one count per key, not per key and server instance', async () => {
    const { key } = await app.key('acme');
    const statuses = [];
    for (const server of [app, twin, app, twin]) statuses.push((await server.get('/api/v1/loads', key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('admits exactly the limit when requests for one key arrive at once on two instances', async () => {
    const { key } = await app.key('acme', { rateLimit: 10 });
    const responses = await Promise.all(Array.from({ length: 200 }, (_, index) => (index % 2 ? twin : app).get('/api/v1/loads', key)));
    const statuses = responses.map((response) => response.statusCode);
    expect({ 200: statuses.filter((status) => status === 200).length, 429: statuses.filter((status) => status === 429).length }).toEqual({ 200: 10, 429: 190 });
    // Counted one after another: the admitted ones say Remaining 9 down to 0, once each.
    const remaining = responses.filter((response) => response.statusCode === 200).map((response) => Number(rate(response).remaining));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps separate windows for separate keys of one customer', async () => {
    const first = await app.key('acme', { rateLimit: 1 });
    const second = await app.key('acme', { rateLimit: 1 });
    expect((await app.get('/api/v1/loads', first.key)).statusCode).toBe(200);
    expect((await app.get('/api/v1/loads', second.key)).statusCode).toBe(200);
  });
});
