// DECISIONS.md, "Other responses": a caller's well-formed X-Request-Id (1-128 letters, digits, `.`, `_`,
// `:`, `-`) comes back on the response and in the request's log line; any other value is replaced by a
// new id. A request with more than one Authorization header gets the one 401.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { startAppWithKey, type TestApp } from './support/app.js';

const ID_CHARACTERS = 'ABCXYZabcxyz0189._:-'.split('');
const wellFormedIds = fc.array(fc.constantFrom(...ID_CHARACTERS), { minLength: 1, maxLength: 128 }).map((chars) => chars.join(''));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the request id', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url, { env: { PORT: '0' } }));
  });
  afterAll(async () => {
    await app?.close();
  });

  const loggedIds = () => app.logLines.map((line) => JSON.parse(line) as { requestId?: string; res?: unknown }).filter((line) => line.res).map((line) => line.requestId);

  it("gives back a caller's well-formed X-Request-Id and logs the request under it", async () => {
    await fc.assert(
      fc.asyncProperty(wellFormedIds, async (id) => {
        const response = await app.get('/api/v1/loads', key, { 'x-request-id': id });
        expect(response.statusCode).toBe(200);
        expect(response.headers['x-request-id']).toBe(id);
        expect(loggedIds().at(-1)).toBe(id);
      }),
      { numRuns: 25 },
    );
    // On an error response too.
    expect((await app.get('/api/v1/loads', undefined, { 'x-request-id': 'caller:trace-1' })).headers['x-request-id']).toBe('caller:trace-1');
  });

  it('replaces any other value by a new id, on the response and in the log', async () => {
    const malformed = ['', ' ', 'a'.repeat(129), 'has space', 'semi;colon', 'new\u00e9', 'a/b', 'lf=1', '"quoted"', 'a,b'];
    for (const given of malformed) {
      const response = await app.get('/api/v1/loads', key, { 'x-request-id': given });
      const id = String(response.headers['x-request-id']);
      expect(id, JSON.stringify(given)).toMatch(UUID);
      expect(loggedIds().at(-1)).toBe(id);
    }
    const absent = await app.get('/api/v1/loads', key);
    expect(String(absent.headers['x-request-id'])).toMatch(UUID);
  });

  it('answers a request with two Authorization headers, even two valid ones, with the 401 every failure gets', async () => {
    await app.server.start();
    const { port } = app.server.info;
    const send = (headers: string[]) =>
      new Promise<{ status: number; body: string; authenticate: unknown }>((resolve, reject) => {
        const sent = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/loads', headers: ['Host', `127.0.0.1:${port}`, ...headers] }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body, authenticate: response.headers['www-authenticate'] }));
        });
        sent.on('error', reject);
        sent.end();
      });
    const bearer = `Bearer ${key}`;
    expect((await send(['Authorization', bearer])).status).toBe(200);
    const missing = await send([]);
    for (const headers of [
      ['Authorization', bearer, 'Authorization', bearer],
      ['Authorization', bearer, 'authorization', 'Bearer lf_live_x'],
      ['authorization', 'Basic eA==', 'AUTHORIZATION', bearer],
    ]) {
      expect(await send(headers), headers.join(' ')).toEqual({ ...missing, status: 401 });
    }
    expect(missing.authenticate).toBe('Bearer');
  });
});
