import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

describe('GET /', () => {
  const database = useTestDatabase();
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(database.url);
  });
  afterAll(() => app.close());

  it('redirects to the API reference, without a key, with a request id', async () => {
    const response = await app.get('/');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/api/v1/docs');
    expect(response.headers['x-request-id']).toBeTruthy();
    expect((await app.get(response.headers.location as string)).statusCode).toBe(200);
  });

  it('redirects with a key too, and HEAD / as GET /; another method on / is not found', async () => {
    const keyed = await app.server.inject({ method: 'GET', url: '/', headers: { authorization: 'Bearer lf_live_nonsense' } });
    expect([keyed.statusCode, keyed.headers.location]).toEqual([302, '/api/v1/docs']);
    const head = await app.server.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(302);
    const post = await app.server.inject({ method: 'POST', url: '/' });
    expect(post.statusCode).toBe(404);
    expect(JSON.parse(post.payload)).toEqual({ error: 'Not found' });
  });
});
