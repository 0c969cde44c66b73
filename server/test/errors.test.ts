import { openApiDocument } from '@loadfeed/spec/document';
import { checkErrorBody, checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { asChecked, startApp, startAppWithKey, type TestApp } from './support/app.js';

describe('responses other than a page of loads', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url, { env: { RATE_LIMIT_PER_MINUTE: '1000' } }));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers an unknown path with a 404 and the error body, with or without a key', async () => {
    for (const url of ['/api', '/api/v1/load', '/api/v2/loads', '/api/v1/loads/123', '/api/v1/loads/']) {
      for (const withKey of [undefined, key]) {
        const response = await app.get(url, withKey);
        expect(response.statusCode, url).toBe(404);
        expect(JSON.parse(response.payload)).toEqual({ error: 'Not found' });
        expect(checkErrorBody(404, JSON.parse(response.payload))).toEqual([]);
      }
    }
  });

  it('answers another method on /api/v1/loads with a 405, Allow: GET and the error body', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await app.server.inject({ method, url: '/api/v1/loads', headers: { authorization: `Bearer ${key}` }, payload: method === 'POST' ? '{}' : undefined });
      expect(response.statusCode, method).toBe(405);
      expect(response.headers.allow).toBe('GET');
      const body = JSON.parse(response.payload) as unknown;
      expect(checkErrorBody(405, body)).toEqual([]);
    }
    const malformed = await app.server.inject({ method: 'POST', url: '/api/v1/loads', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(malformed.statusCode).toBe(405);
  });

  it('puts an X-Request-Id on every response, a different one each time', async () => {
    const responses = [
      await app.get('/api/v1/loads', key),
      await app.get('/api/v1/loads?page=0', key),
      await app.get('/api/v1/loads'),
      await app.get('/nowhere'),
      await app.server.inject({ method: 'DELETE', url: '/api/v1/loads' }),
      await app.get('/api/v1/openapi.json'),
      await app.get('/healthz'),
      await app.get('/readyz'),
    ];
    const ids = responses.map((response) => response.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives a 400 the details of each problem, and the error body shape of the contract', async () => {
    const response = await app.get('/api/v1/loads?page=0&pagesize=10', key);
    expect(checkResponse(asChecked(response))).toEqual([]);
    const body = JSON.parse(response.payload) as { error: string; details: string[] };
    expect(body.details).toHaveLength(2);
  });

  it('bounds a 400 body: 2,700 unknown parameters get the first ten named and a count of the rest, not a body of 179 KB', async () => {
    const query = Array.from({ length: 2_700 }, (_, index) => `p${index}=1`).join('&');
    const response = await app.get(`/api/v1/loads?${query}`, key);
    expect(response.statusCode).toBe(400);
    expect(checkResponse(asChecked(response))).toEqual([]);
    const body = JSON.parse(response.payload) as { error: string; details: string[] };
    expect(body.details).toHaveLength(11);
    expect(body.details[0]).toMatch(/^"p0" is not a parameter of this operation/);
    // hapi reads the first 1,000 parameters of a query.
    expect(body.details[10]).toMatch(/^… and \d+ more problems \(\d+ in all\)$/);
    expect(response.payload.length).toBeLessThan(query.length / 2);
  });

  it('cuts a very long problem short in a 400 body', async () => {
    const response = await app.get(`/api/v1/loads?${'x'.repeat(5_000)}=1`, key);
    const body = JSON.parse(response.payload) as { details: string[] };
    expect(body.details).toHaveLength(1);
    expect(body.details[0]!.length).toBeLessThanOrEqual(300);
  });

  it('serves the contract as JSON at /api/v1/openapi.json without a key', async () => {
    const response = await app.get('/api/v1/openapi.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    // Its `servers` names the server that answered (test/openapi.test.ts).
    expect(JSON.parse(response.payload)).toEqual({ ...openApiDocument, servers: [expect.objectContaining({ url: expect.any(String) })] });
  });

  it('answers /healthz while running and /readyz while the database answers', async () => {
    expect((await app.get('/healthz')).statusCode).toBe(200);
    expect((await app.get('/readyz')).statusCode).toBe(200);
  });

  it('turns an unexpected failure into a 500 with the error body and nothing of what went wrong', async () => {
    const broken = await startApp(database.url);
    await broken.pool.end();
    try {
      const response = await broken.get('/api/v1/loads', key);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.payload)).toEqual({ error: 'Internal server error' });
      expect(checkResponse(asChecked(response))).toEqual([]);
      expect(response.headers['x-request-id']).toBeDefined();
      const ready = await broken.get('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(checkErrorBody(503, JSON.parse(ready.payload))).toEqual([]);
    } finally {
      await broken.server.stop();
    }
  });
  it('logs a programming error once, with its request id and cause, and writes nothing of it to stderr', async () => {
    const broken = await startApp(database.url);
    // A bug in the handler's own code: the request is admitted (pool.query), then the page's read, which
    // checks a connection out for each statement so that it can cancel it (db/cancellable.ts), throws a TypeError.
    const connect = broken.pool.connect.bind(broken.pool);
    broken.pool.connect = (() => {
      throw new TypeError('a bug in the page read');
    }) as unknown as typeof connect;
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const response = await broken.get('/api/v1/loads', key);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.payload)).toEqual({ error: 'Internal server error' });
      const requestId = response.headers['x-request-id'];
      const causes = broken.logLines
        .map((line) => JSON.parse(line) as { level: number; requestId?: string; err?: { type: string } })
        .filter((line) => line.requestId === requestId && line.err);
      expect(causes).toHaveLength(1);
      expect(causes[0]).toMatchObject({ level: 50, err: { type: 'TypeError', message: 'a bug in the page read' } });
      // hapi's default debug channel would print the same error again, without the request id.
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      broken.pool.connect = connect;
      await broken.server.stop();
    }
  });
});
