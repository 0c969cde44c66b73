import { checkResponse } from '@loadfeed/spec/validate';
import type { ServerInjectResponse } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { asChecked, startApp, testClock, type TestApp } from '../support/app.js';

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

const seconds = (iso: string, plusMs = 0) => String(Math.ceil((Date.parse(iso) + plusMs) / 1000));

describe('the per-key rate limit', () => {
  const database = useTestDatabase();
  const T0 = '2026-06-15T12:00:00.400Z';
  const clock = testClock(T0);
  let app: TestApp;
  let twin: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url, { clock, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    // A second instance on the same database and clock: the count must be one.
    twin = await startApp(database.url, { clock, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
    await twin?.close();
  });

  it('counts a rolling 60 s: Remaining, Reset at the oldest counted request\'s exit, Retry-After on a 429', async () => {
    clock.set(T0);
    const { key } = await app.key('acme');
    const exitOfFirst = seconds(T0, 60_000);
    expect(rate(await app.get('/api/v1/loads', key))).toEqual({ status: 200, limit: '3', remaining: '2', reset: exitOfFirst });
    clock.advance(10_000);
    expect(rate(await app.get('/api/v1/loads', key))).toEqual({ status: 200, limit: '3', remaining: '1', reset: exitOfFirst });
    clock.advance(10_000);
    expect(rate(await app.get('/api/v1/loads', key))).toEqual({ status: 200, limit: '3', remaining: '0', reset: exitOfFirst });
    clock.advance(10_000);
    const refused = await app.get('/api/v1/loads', key);
    expect(rate(refused)).toEqual({ status: 429, limit: '3', remaining: '0', reset: exitOfFirst, retryAfter: '30' });
    expect(checkResponse(asChecked(refused))).toEqual([]);
    // The first request leaves the window exactly 60 s after it was counted.
    clock.set(new Date(Date.parse(T0) + 59_999));
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 429, retryAfter: '1' });
    clock.set(new Date(Date.parse(T0) + 60_000));
    const secondExit = seconds(T0, 70_000);
    expect(rate(await app.get('/api/v1/loads', key))).toEqual({ status: 200, limit: '3', remaining: '0', reset: secondExit });
  });

  it('does not count a refused request', async () => {
    clock.set(T0);
    const { key } = await app.key('acme', { rateLimit: 1 });
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      clock.advance(10_000);
      expect((await app.get('/api/v1/loads', key)).statusCode).toBe(429);
    }
    // Had the refusals counted, the window would still be full 60 s after the first request.
    clock.set(new Date(Date.parse(T0) + 60_000));
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 200, remaining: '0' });
  });

  it('counts a 400 and puts the rate headers on it', async () => {
    clock.set(T0);
    const { key } = await app.key('acme');
    const invalid = await app.get('/api/v1/loads?page=0', key);
    expect(rate(invalid)).toEqual({ status: 400, limit: '3', remaining: '2', reset: seconds(T0, 60_000) });
    expect(checkResponse(asChecked(invalid))).toEqual([]);
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 200, remaining: '1' });
  });

  it('checks the limit before validation: a refused invalid request is a 429, not a 400', async () => {
    clock.set(T0);
    const { key } = await app.key('acme', { rateLimit: 1 });
    await app.get('/api/v1/loads', key);
    expect((await app.get('/api/v1/loads?page=0', key)).statusCode).toBe(429);
  });

  it('does not count a 401', async () => {
    clock.set(T0);
    const { id, key } = await app.key('acme');
    await app.get('/api/v1/loads', `${key}x`);
    await app.get('/api/v1/loads', undefined);
    const { rows } = await app.pool.query('SELECT count(*)::int AS n FROM rate_limit_hits WHERE key_id = $1::uuid', [id]);
    expect(rows[0].n).toBe(0);
    expect(rate(await app.get('/api/v1/loads', key))).toMatchObject({ status: 200, remaining: '2' });
  });

  it('uses the server default for keys without a limit and a key\'s own limit when it has one', async () => {
    clock.set(T0);
    const plain = await app.key('acme');
    const generous = await app.key('acme', { rateLimit: 500 });
    expect(rate(await app.get('/api/v1/loads', plain.key)).limit).toBe('3');
    expect(rate(await app.get('/api/v1/loads', generous.key))).toMatchObject({ limit: '500', remaining: '499' });
  });

  it('keeps one count per key, not per key and server instance', async () => {
    clock.set(T0);
    const { key } = await app.key('acme');
    const statuses = [];
    for (const server of [app, twin, app, twin]) statuses.push((await server.get('/api/v1/loads', key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('admits exactly the limit when requests for one key arrive at once on two instances', async () => {
    clock.set(T0);
    const { key } = await app.key('acme', { rateLimit: 5 });
    const responses = await Promise.all(Array.from({ length: 16 }, (_, index) => (index % 2 ? twin : app).get('/api/v1/loads', key)));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(11);
  });

  it('keeps separate windows for separate keys of one customer', async () => {
    clock.set(T0);
    const first = await app.key('acme', { rateLimit: 1 });
    const second = await app.key('acme', { rateLimit: 1 });
    expect((await app.get('/api/v1/loads', first.key)).statusCode).toBe(200);
    expect((await app.get('/api/v1/loads', second.key)).statusCode).toBe(200);
  });

  it('prunes hits that left the window', async () => {
    clock.set(T0);
    const { id, key } = await app.key('acme');
    await app.get('/api/v1/loads', key);
    await app.get('/api/v1/loads', key);
    clock.advance(61_000);
    await app.get('/api/v1/loads', key);
    const { rows } = await app.pool.query('SELECT count(*)::int AS n FROM rate_limit_hits WHERE key_id = $1::uuid', [id]);
    expect(rows[0].n).toBe(1);
  });
});
