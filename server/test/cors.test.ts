// CORS (DECISIONS.md, Other responses): refused unless CORS_ORIGINS lists the page's origin; a listed
// origin's preflight is answered before authentication and never counted; the headers a client reads
// are exposed; credentials never; without the setting, nothing changes.
import type { ServerInjectResponse } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { useTestDatabase } from '../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from './support/app.js';

const LISTED = 'https://app.example.com';
const ALSO_LISTED = 'http://127.0.0.1:5173';
const UNLISTED = 'https://evil.example.com';
const EXPOSED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'X-Request-Id', 'Date', 'X-Feed-Settled-Through'];

function preflight(app: TestApp, origin: string, method = 'GET', url = '/api/v1/loads'): Promise<ServerInjectResponse> {
  return app.server.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,user-agent' },
  });
}

const corsHeadersOf = (response: ServerInjectResponse) => Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));
const varyOf = (response: ServerInjectResponse) => String(response.headers.vary ?? '').toLowerCase().split(/\s*,\s*/);

function expectThe405(response: ServerInjectResponse): void {
  expect(response.statusCode).toBe(405);
  expect(response.headers.allow).toBe('GET');
  expect(JSON.parse(response.payload)).toEqual({ error: expect.any(String) });
}

describe('CORS', () => {
  const database = useTestDatabase();
  let off: TestApp;
  let on: TestApp;
  let key: string;

  beforeAll(async () => {
    off = await startApp(database.url);
    on = await startApp(database.url, { env: { CORS_ORIGINS: `${LISTED}, ${ALSO_LISTED}` } });
    await on.customer('acme');
    key = (await on.key('acme')).key;
    await on.load('acme', [aLoad('A-1')]);
  });
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });

  it('without CORS_ORIGINS nothing changes: a preflight is the 405 with Allow: GET, and a GET from any origin gets no CORS header', async () => {
    const refused = await preflight(off, LISTED);
    expectThe405(refused);
    expect(corsHeadersOf(refused)).toEqual([]);
    const page = await off.get('/api/v1/loads', key, { origin: LISTED });
    expect(page.statusCode).toBe(200);
    expect(corsHeadersOf(page)).toEqual([]);
    expect(varyOf(page)).not.toContain('origin');
  });

  it("a listed origin's preflight gets a 204 without a key: GET, Authorization allowed, never credentials, Vary: Origin", async () => {
    for (const origin of [LISTED, ALSO_LISTED]) {
      const response = await preflight(on, origin);
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-methods']).toBe('GET');
      expect(String(response.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/)).toEqual(expect.arrayContaining(['authorization', 'user-agent']));
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(varyOf(response)).toContain('origin');
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    }
  });

  it('preflights never count against the rate limit', async () => {
    const limited = (await on.key('acme', { rateLimit: 3 })).key;
    for (let i = 0; i < 10; i++) expect((await preflight(on, LISTED)).statusCode).toBe(204);
    const first = await on.get('/api/v1/loads', limited, { origin: LISTED });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
  });

  it("an unlisted origin's preflight, a preflight for another method and an OPTIONS that is no preflight are the 405", async () => {
    const unlisted = await preflight(on, UNLISTED);
    expectThe405(unlisted);
    expect(corsHeadersOf(unlisted)).toEqual([]);
    expect(varyOf(unlisted)).toContain('origin');
    expectThe405(await preflight(on, LISTED, 'DELETE'));
    expectThe405(await on.server.inject({ method: 'OPTIONS', url: '/api/v1/loads', headers: { origin: LISTED } }));
    expectThe405(await on.server.inject({ method: 'OPTIONS', url: '/api/v1/loads' }));
  });

  it('a page, a 401 and a 429 to a listed origin let its script read the rate-limit headers, Retry-After, X-Request-Id, Date and the settled-through header', async () => {
    const page = await on.get('/api/v1/loads', key, { origin: LISTED });
    expect(page.statusCode).toBe(200);
    expect(page.headers['access-control-allow-origin']).toBe(LISTED);
    expect(String(page.headers['access-control-expose-headers']).split(/\s*,\s*/)).toEqual(expect.arrayContaining(EXPOSED));
    expect(page.headers['access-control-allow-credentials']).toBeUndefined();
    expect(varyOf(page)).toContain('origin');

    const refused = await on.get('/api/v1/loads', 'lf_live_nope', { origin: LISTED });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(LISTED);

    const once = (await on.key('acme', { rateLimit: 1 })).key;
    expect((await on.get('/api/v1/loads', once, { origin: LISTED })).statusCode).toBe(200);
    const limited = await on.get('/api/v1/loads', once, { origin: LISTED });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['access-control-allow-origin']).toBe(LISTED);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
  });

  it('an unlisted origin gets the page (a browser withholds it from the script) with Vary: Origin and no CORS header', async () => {
    const page = await on.get('/api/v1/loads', key, { origin: UNLISTED });
    expect(page.statusCode).toBe(200);
    expect(corsHeadersOf(page)).toEqual([]);
    expect(varyOf(page)).toContain('origin');
  });

  it('the contract is readable from a listed origin; other paths are as without CORS', async () => {
    const contract = await on.get('/api/v1/openapi.json', undefined, { origin: LISTED });
    expect(contract.headers['access-control-allow-origin']).toBe(LISTED);
    const health = await on.get('/healthz', undefined, { origin: LISTED });
    expect(corsHeadersOf(health)).toEqual([]);
    const options = await on.server.inject({ method: 'OPTIONS', url: '/api/v1/openapi.json', headers: { origin: LISTED, 'access-control-request-method': 'GET' } });
    const before = await off.server.inject({ method: 'OPTIONS', url: '/api/v1/openapi.json', headers: { origin: LISTED, 'access-control-request-method': 'GET' } });
    expect(options.statusCode).toBe(before.statusCode);
  });

  it('CORS_ORIGINS takes origins only: a path, a trailing slash, another scheme or a word stop the start by its name', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example.com,http://localhost:8080' }).corsOrigins).toEqual(['https://a.example.com', 'http://localhost:8080']);
    for (const bad of ['https://a.example.com/app', 'https://a.example.com/', 'ftp://a.example.com', '*', 'a.example.com', 'https://a.example.com,https://a.example.com']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS must be origins/);
    }
  });
});
