import type { ServerInjectResponse } from '@hapi/hapi';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startPrimary, type Primary } from '../topology/src/postgres.js';
import { asChecked, startApp, startAppWithKey, type TestApp } from './support/app.js';
import { startProxy, type CuttableProxy } from './support/proxy.js';

/** The one log line that gives the cause of a 5xx, at level 50, with no part of the key in the request's lines. */
function causeOf(app: TestApp, key: string, response: ServerInjectResponse): { level: number; err: { message: string; stack?: string } } {
  const requestId = String(response.headers['x-request-id']);
  const lines = app.logLines.filter((line) => line.includes(requestId));
  expect(lines.join('\n')).not.toContain(key.slice('lf_live_'.length));
  const causes = lines.map((line) => JSON.parse(line) as { level: number; err?: { message: string } }).filter((line) => line.err);
  expect(causes).toHaveLength(1);
  expect(causes[0]!.level).toBe(50);
  return causes[0] as { level: number; err: { message: string } };
}

describe('a database outage', () => {
  const database = useTestDatabase();
  let proxy: CuttableProxy;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    const setup = await startApp(database.url);
    await setup.customer('acme');
    key = (await setup.key('acme')).key;
    await setup.close();
    proxy = await startProxy(database.url);
    app = await startApp(proxy.url, { env: { DB_STATEMENT_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000' } });
  });
  afterAll(async () => {
    proxy?.thaw();
    await app?.close();
    await proxy?.close();
  });

  it('gives the 500 error body and a 503 from /readyz, without crashing, and the server recovers on its own', async () => {
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);

    proxy.cut();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await app.get('/api/v1/loads', key);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.payload)).toEqual({ error: 'Internal server error' });
      expect(checkResponse(asChecked(response))).toEqual([]);
      expect(causeOf(app, key, response).err.message).toMatch(/connect|terminat|ECONNREFUSED|ECONNRESET|timeout/i);
    }
    expect((await app.get('/readyz')).statusCode).toBe(503);
    expect((await app.get('/healthz')).statusCode).toBe(200);

    proxy.restore();
    expect((await app.get('/readyz')).statusCode).toBe(200);
    const recovered = await app.get('/api/v1/loads', key);
    expect(recovered.statusCode).toBe(200);
    expect(checkResponse(asChecked(recovered))).toEqual([]);
  });

  it('ends a request to a database that stops answering with a 500 within the statement timeout and a second, and recovers', async () => {
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);
    proxy.freeze();
    try {
      const started = Date.now();
      const inFlight = await app.get('/api/v1/loads', key);
      const waited = Date.now() - started;
      expect(inFlight.statusCode).toBe(500);
      expect(JSON.parse(inFlight.payload)).toEqual({ error: 'Internal server error' });
      // DB_STATEMENT_TIMEOUT_MS=1000: the client-side deadline is 2 s (19.9 s before: no deadline).
      expect(waited).toBeGreaterThanOrEqual(1_900);
      expect(waited).toBeLessThan(4_000);
      expect(causeOf(app, key, inFlight).err.message).toMatch(/timeout/i);
      // A new connection to it: bounded by DB_CONNECT_TIMEOUT_MS=1000.
      const next = Date.now();
      expect((await app.get('/api/v1/loads', key)).statusCode).toBe(500);
      expect(Date.now() - next).toBeLessThan(3_000);
    } finally {
      proxy.thaw();
    }
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 200; attempt += 1) {
      status = (await app.get('/api/v1/loads', key)).statusCode;
    }
    expect(status).toBe(200);
  });

  it('survives its connections being terminated by the database', async () => {
    // Several at once, so that the pool holds several connections to lose.
    const warm = await Promise.all([1, 2, 3].map(() => app.get('/api/v1/loads', key)));
    expect(warm.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    const { rows } = await app.pool.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
    // The pool drops dead connections as they report; requests succeed again without a restart.
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 200; attempt += 1) {
      status = (await app.get('/api/v1/loads', key)).statusCode;
    }
    expect(status).toBe(200);
  });

  /** The one line that logs why `response` is a 5xx: level 50, with the request id, and no key in it. */
});

// The outage as it happens to a deployment: the PostgreSQL server itself stops (a fast shutdown ends
// every session) and comes back on the same address. A cluster of the test's own, from Debian's
// PostgreSQL programs (provisioned by scripts/provision.sh), never the one other tests share.
describe('a PostgreSQL of its own, stopped and started again', () => {
  let primary: Primary;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    primary = await startPrimary();
    await primary.sql('CREATE DATABASE loadfeed');
    ({ app, key } = await startAppWithKey(primary.urlOf('loadfeed'), { env: { DB_STATEMENT_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000' } }));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await primary?.destroy();
  }, 60_000);

  it('answers with the 500 error body at once while it is down, logs why, and serves again without a restart once it is back', async () => {
    expect((await app.get('/api/v1/loads', key)).statusCode).toBe(200);

    await primary.stop();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const started = Date.now();
      const response = await app.get('/api/v1/loads', key);
      // A refused connection is known at once: well inside the connect timeout, not after the pool's.
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.payload)).toEqual({ error: 'Internal server error' });
      expect(checkResponse(asChecked(response))).toEqual([]);
      expect(causeOf(app, key, response).err.message).toMatch(/ECONNREFUSED|terminat|connect/i);
    }
    expect((await app.get('/readyz')).statusCode).toBe(503);
    expect((await app.get('/healthz')).statusCode).toBe(200);

    await primary.start();
    // The pool's connections died with the server: each is dropped as it reports, none is reused.
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 200; attempt += 1) {
      status = (await app.get('/api/v1/loads', key)).statusCode;
    }
    expect(status).toBe(200);
    expect((await app.get('/readyz')).statusCode).toBe(200);
  });
});
