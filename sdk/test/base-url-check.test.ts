// The library names a wrong base URL as `loadfeed` does: createClient's calls and syncLoads raise a
// BaseUrlError that says what answered there and the base URL to use, for a base URL ending in /api/v1, a
// page of another site, and https against a plain-HTTP server (the whole hint on one line, whatever the
// TLS library prints). A right base URL, and a failure that came from the API, are left as they were.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, AuthenticationError, BaseUrlError, createClient, syncLoads } from '../src/index.js';
import { pageBody } from './fault-server.js';

const KEY = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';
const requests: string[] = [];
let server: Server;
let deployment: string;
let port: number;

beforeAll(async () => {
  // SPEC's paths and nothing else; everything else is a web server's HTML 404; a wrong key is a 401.
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/api/v1/openapi.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.1.0"}');
    if (request.url?.startsWith('/api/v1/loads')) {
      if (request.headers.authorization !== `Bearer ${KEY}`) return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(pageBody());
    }
    if (request.url?.startsWith('/welcome/')) return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>');
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not Found</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  deployment = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const syncWith = (baseUrl: string, apiKey = KEY) =>
  syncLoads({ client: createClient({ baseUrl, apiKey, retry: { maxAttempts: 1 } }), upsert: () => {} }).catch((caught: unknown) => caught);

describe('a wrong base URL, from code', () => {
  it('ending in /api/v1: syncLoads raises a BaseUrlError that names the base URL to use', async () => {
    requests.length = 0;
    const error = await syncWith(`${deployment}/api/v1`);
    expect(error).toBeInstanceOf(BaseUrlError);
    expect((error as BaseUrlError).suggestion).toBe(deployment);
    expect((error as Error).message).toBe(
      `the base URL is wrong: ${deployment}/api/v1/api/v1/openapi.json answered 404 with an HTML page, not the API's OpenAPI document: ` +
        `the base URL ends in /api/v1, which the paths already carry (they start with /api/v1); set baseUrl to ${deployment}`,
    );
    expect((error as BaseUrlError).cause).toBeInstanceOf(ApiError);
    expect(requests).toEqual([expect.stringMatching(/^\/api\/v1\/api\/v1\/loads\?/), '/api/v1/api/v1/openapi.json', '/api/v1/openapi.json']);
  });

  it('a page of another site that answers HTML: listLoads raises a BaseUrlError naming the site', async () => {
    for (const baseUrl of [`${deployment}/docs/start.html`, `${deployment}/welcome/here`]) {
      const error = await createClient({ baseUrl, apiKey: KEY, retry: { maxAttempts: 1 } })
        .listLoads()
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BaseUrlError);
      expect((error as Error).message).toMatch(/^the base URL is wrong: .*answered \d+ with an HTML page.*; set baseUrl to http:\/\/127\.0\.0\.1:\d+$/);
    }
  });

  it('https against a plain-HTTP server: the whole hint, on one line, ends with the fix', async () => {
    const error = await syncWith(`https://127.0.0.1:${port}`);
    expect(error).toBeInstanceOf(BaseUrlError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(new RegExp(`^the base URL is wrong: https://127\\.0\\.0\\.1:${port} speaks plain HTTP, not HTTPS \\(.+\\); set baseUrl to http://127\\.0\\.0\\.1:${port}$`));
  });

  it('a right base URL is left alone: a refused key stays a 401, and nothing is probed', async () => {
    requests.length = 0;
    const error = await syncWith(deployment, 'lf_live_someOtherKey000000000000000000000000000');
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(requests.every((url) => url.startsWith('/api/v1/loads'))).toBe(true);
  });
});
