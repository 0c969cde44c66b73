import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

  it('serves swagger-ui-bundle.js gzipped when asked, compressed once rather than on every request', async () => {
    const bundle = readFileSync(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));
    const compressing = vi.spyOn(zlib, 'createGzip');
    try {
      for (let request = 0; request < 3; request += 1) {
        const response = await app.server.inject({ url: '/api/v1/docs/assets/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-encoding']).toBe('gzip');
        expect(response.headers.vary).toMatch(/accept-encoding/i);
        expect(response.headers['content-type']).toMatch(/^text\/javascript/);
        const body = response.rawPayload;
        expect(body.length).toBeLessThan(bundle.length / 2);
        expect(zlib.gunzipSync(body).equals(bundle)).toBe(true);
      }
      expect(compressing).not.toHaveBeenCalled();
    } finally {
      compressing.mockRestore();
    }
    const plain = await app.server.inject({ url: '/api/v1/docs/assets/swagger-ui-bundle.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(bundle)).toBe(true);
  });

  it('answers an unknown asset with the 404 error body', async () => {
    const response = await app.get('/api/v1/docs/assets/../../openapi.json');
    const unknown = await app.get('/api/v1/docs/assets/secrets.js');
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.payload)).toEqual({ error: 'Not found' });
    expect(response.statusCode).not.toBe(500);
  });
});
