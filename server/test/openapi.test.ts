// The served contract names the server that served it, whatever port or name it was reached on.
import Hapi from '@hapi/hapi';
import { OPENAPI_PATH } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiRoute } from '../src/openapi.js';

describe('GET /api/v1/openapi.json', () => {
  const server = Hapi.server();
  beforeAll(() => server.route(openApiRoute()));
  const served = async (headers: Record<string, string>) => {
    const response = await server.inject({ method: 'GET', url: OPENAPI_PATH, headers });
    return { response, document: JSON.parse(response.payload) as typeof openApiDocument & { servers: { url: string }[] } };
  };

  it('names the server on the port the request reached, not the 3000 of the document in spec/', async () => {
    const { response, document } = await served({ host: '127.0.0.1:3187' });
    expect(response.statusCode).toBe(200);
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:3187', description: expect.any(String) }]);
    expect({ ...document, servers: openApiDocument.servers }).toEqual(openApiDocument);
    expect(response.headers.vary).toMatch(/Host/);
  });

  it('names the scheme a TLS-ending proxy says the client used', async () => {
    const { document } = await served({ host: 'loads.example.com', 'x-forwarded-proto': 'https' });
    expect(document.servers[0]?.url).toBe('https://loads.example.com');
  });

  it('names an IPv6 address with its brackets', async () => {
    const { document } = await served({ host: '[::1]:8080' });
    expect(document.servers[0]?.url).toBe('http://[::1]:8080');
  });

  it('falls back to the relative URL "/" for a Host header that is not a host, rather than echo it', async () => {
    for (const host of ['evil.example/<script>', 'a b', '']) {
      const { document } = await served({ host });
      expect(document.servers[0]?.url, host).toBe('/');
    }
  });
});
