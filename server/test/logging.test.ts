import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startApp, startAppWithKey, type TestApp } from './support/app.js';

interface RequestLine {
  requestId?: string;
  customer?: string;
  res?: { statusCode: number };
  responseTime?: number;
  msg?: string;
}

describe('request logging', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url));
  });
  afterAll(async () => {
    await app?.close();
  });

  function lineOf(requestId: string): RequestLine {
    const lines = app.logLines.map((line) => JSON.parse(line) as RequestLine).filter((line) => line.requestId === requestId && line.res);
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  it('writes one line per request with its id, customer, status and duration', async () => {
    const response = await app.get('/api/v1/loads', key);
    const line = lineOf(String(response.headers['x-request-id']));
    expect(line).toMatchObject({ customer: 'acme', res: { statusCode: 200 } });
    expect(line.responseTime).toEqual(expect.any(Number));
    expect(line.msg).toMatch(/^GET \/api\/v1\/loads 200 \d+ms$/);
  });

  it('logs a refused request without a customer', async () => {
    const response = await app.get('/api/v1/loads', `${key}x`);
    const line = lineOf(String(response.headers['x-request-id']));
    expect(line.res).toEqual({ statusCode: 401 });
    expect(line.customer).toBeUndefined();
  });

  it('never writes a key, wherever a client puts it', async () => {
    const before = app.logLines.length;
    await app.get('/api/v1/loads', key);
    await app.get('/api/v1/loads', `${key}x`);
    await app.get('/api/v1/loads', undefined, { authorization: `Basic ${key}` });
    await app.get(`/api/v1/loads?apiKey=${key}`, key);
    await app.get(`/api/v1/loads?status=${key}`, key);
    await app.get(`/nowhere?key=${key}`, undefined, { 'x-api-key': key });
    const broken = await startApp(database.url);
    await broken.pool.end();
    await broken.get('/api/v1/loads', key);
    await broken.server.stop();
    const written = [...app.logLines.slice(before), ...broken.logLines].join('\n');
    expect(written.length).toBeGreaterThan(0);
    expect(written).not.toContain(key.slice('lf_live_'.length));
    expect(written.toLowerCase()).not.toContain('authorization');
  });
});
