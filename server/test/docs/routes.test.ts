import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

describe('the API reference page at /api/v1/docs', () => {
  const database = useTestDatabase();
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(database.url);
  });
  afterAll(() => app.close());

  it('is served without a key, with a policy that lets it reach nothing but this server', async () => {
    const response = await app.get('/api/v1/docs');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response.headers['x-request-id']).toBeTruthy();
    const assetUrls = [...response.payload.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assetUrls.length).toBeGreaterThanOrEqual(4);
    for (const url of assetUrls) expect(url.startsWith('/api/v1/docs/assets/')).toBe(true);
  });

  it('serves every asset the page names, and the renderer is pointed at this server\'s contract', async () => {
    const page = await app.get('/api/v1/docs');
    for (const [, url] of page.payload.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const asset = await app.get(url!);
      expect(asset.statusCode, url).toBe(200);
    }
    const init = await app.get('/api/v1/docs/assets/init.js');
    expect(init.payload).toContain('fetch("/api/v1/openapi.json")');
    expect(init.payload).toContain('validatorUrl: null');
  });

  it('answers an unknown asset with the 404 error body', async () => {
    const response = await app.get('/api/v1/docs/assets/../../openapi.json');
    const unknown = await app.get('/api/v1/docs/assets/secrets.js');
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.payload)).toEqual({ error: 'Not found' });
    expect(response.statusCode).not.toBe(500);
  });
});
