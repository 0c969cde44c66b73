// The base-URL probe against real sockets: a deployment at the root, one under a path prefix, a site that
// answers HTML, and the same deployment behind HTTPS (a self-signed certificate, fixtures/) and plain HTTP.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeVerdict, probeBaseUrl } from '../src/base-url.js';

const DOCUMENT = JSON.stringify({ openapi: '3.1.0', info: { title: 'Customer Data API', version: '1.0.0' }, paths: {} });

/** A deployment whose API sits under `prefix`; every other path is an HTML 404, as a web server's is. */
function deployment(prefix: string, seen: string[]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    seen.push(request.url ?? '');
    if (request.url === `${prefix}/api/v1/openapi.json`) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(DOCUMENT);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const seen: string[] = [];
const servers: Server[] = [];
let plain: string;
let prefixed: string;
let tls: string;

beforeAll(async () => {
  const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));
  const plainServer = createHttpServer(deployment('', seen));
  const prefixedServer = createHttpServer(deployment('/customer-data', seen));
  const tlsServer = createHttpsServer({ key: fixture('self-signed.key'), cert: fixture('self-signed.crt') }, deployment('', seen));
  servers.push(plainServer, prefixedServer, tlsServer);
  [plain = '', prefixed = '', tls = ''] = await Promise.all(servers.map(listen));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The probe's verdict and the requests it sent to the deployments. */
async function probe(baseUrl: string) {
  seen.length = 0;
  const verdict = await probeBaseUrl(baseUrl, { timeoutMs: 5_000 });
  return { verdict, requests: [...seen] };
}

describe('probeBaseUrl', () => {
  it('accepts the base URL of a deployment, with or without a trailing slash, in one request', async () => {
    expect(await probe(`http://${plain}`)).toEqual({ verdict: { ok: true }, requests: ['/api/v1/openapi.json'] });
    expect((await probe(`http://${plain}/`)).verdict).toEqual({ ok: true });
    expect((await probe(`http://${prefixed}/customer-data`)).verdict).toEqual({ ok: true });
  });

  it.each(['/api/v1', '/api/v1/', '/api', '/api/v1/loads', '/api/v1/openapi.json'])('a base URL ending in %s: says to leave it out, in two requests', async (tail) => {
    const { verdict, requests } = await probe(`http://${plain}${tail}`);
    expect(verdict).toMatchObject({ ok: false, suggestion: `http://${plain}` });
    expect(requests).toHaveLength(2);
    expect(describeVerdict(verdict as Extract<typeof verdict, { ok: false }>)).toMatch(/answered 404 with an HTML page.*the base URL ends in \/api.*use --base-url http:\/\/127/);
  });

  it('keeps a deployment\'s own path prefix: only the API path is taken off', async () => {
    const { verdict } = await probe(`http://${prefixed}/customer-data/api/v1`);
    expect(verdict).toMatchObject({ ok: false, suggestion: `http://${prefixed}/customer-data` });
  });

  it('a page of some other site, where the origin holds the deployment: says to use the origin', async () => {
    const { verdict, requests } = await probe(`http://${plain}/docs/getting-started`);
    expect(verdict).toMatchObject({ ok: false, suggestion: `http://${plain}` });
    expect(requests).toEqual(['/docs/getting-started/api/v1/openapi.json', '/api/v1/openapi.json']);
  });

  it('a site that is no deployment: says what answered, and suggests nothing', async () => {
    const { verdict, requests } = await probe(`http://${prefixed}`);
    expect(verdict).toMatchObject({ ok: false, conclusive: true });
    expect(verdict).not.toHaveProperty('suggestion');
    expect(describeVerdict(verdict as Extract<typeof verdict, { ok: false }>)).toMatch(/\/api\/v1\/openapi\.json answered 404 with an HTML page, not the API's OpenAPI document: is this the base URL/);
    expect(requests).toHaveLength(1);
  });

  it('an API that answers JSON but serves no document is not conclusively the wrong address (a deployment lacking the document)', async () => {
    const api = createHttpServer((_request, response) => response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}'));
    const address = await listen(api);
    try {
      const verdict = await probeBaseUrl(`http://${address}`);
      expect(verdict).toMatchObject({ ok: false, conclusive: false });
      expect(verdict).not.toHaveProperty('suggestion');
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it('http:// where the deployment speaks HTTPS: says to use https', async () => {
    const { verdict } = await probe(`http://${tls}`);
    expect(verdict).toMatchObject({ ok: false, suggestion: `https://${tls}` });
    expect(describeVerdict(verdict as Extract<typeof verdict, { ok: false }>)).toMatch(/speaks HTTPS, not plain HTTP/);
  });

  it('https:// where the deployment speaks plain HTTP: says to use http', async () => {
    const { verdict } = await probe(`https://${plain}`);
    expect(verdict).toMatchObject({ ok: false, suggestion: `http://${plain}` });
    expect(describeVerdict(verdict as Extract<typeof verdict, { ok: false }>)).toMatch(/speaks plain HTTP, not HTTPS/);
  });

  it('an http:// URL that redirects to https: says to use https', async () => {
    const redirecting = createHttpServer((request, response) => response.writeHead(301, { location: `https://${tls}${request.url}` }).end());
    const address = await listen(redirecting);
    try {
      const verdict = await probeBaseUrl(`http://${address}`);
      expect(verdict).toMatchObject({ ok: false, suggestion: `https://${tls}` });
      expect(describeVerdict(verdict as Extract<typeof verdict, { ok: false }>)).toMatch(/answered 301.*redirects to https/);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });

  it('nothing listening: says it cannot reach the address, with the socket\'s reason', async () => {
    const closed = createHttpServer();
    const address = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { verdict } = await probe(`http://${address}`);
    expect(verdict).toEqual({ ok: false, problem: `cannot reach http://${address}: connect ECONNREFUSED ${address}`, conclusive: true });
  });
});
