// A redirect from the base URL: followed within its origin (the key still sent), refused to another origin
// with an error naming it, before anything is sent there.
import { describe, expect, it } from 'vitest';
import { RedirectError, createClient } from '../src/index.js';
import { MOCK_API_KEY } from '../src/mock/index.js';
import { MAX_REDIRECTS } from '../src/redirects.js';
import { contractRow, pageOf, sendJson, startHostileServer } from './hostile-server.js';

const page = pageOf([contractRow(1)]);

describe('redirects', () => {
  it('a redirect to another origin is refused with a RedirectError naming it, and nothing is sent there', async () => {
    const elsewhere = await startHostileServer((_request, response) => sendJson(response, 200, page));
    const server = await startHostileServer((_request, response) => {
      response.writeHead(302, { Location: `${elsewhere.baseUrl}/api/v1/loads?page=1` });
      response.end();
    });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY });
    const error = await client.listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).location).toBe(`${elsewhere.baseUrl}/api/v1/loads?page=1`);
    expect((error as RedirectError).status).toBe(302);
    expect((error as Error).message).toBe(
      `127.0.0.1:${server.port} redirected the request to another origin, ${elsewhere.baseUrl}: the base URL has moved, or something else answers there (the key was not sent there); if the deployment moved, set the base URL to it`,
    );
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('http to https on the same host is another origin too', async () => {
    const server = await startHostileServer((request, response) => {
      response.writeHead(301, { Location: `https://127.0.0.1${request.url}` });
      response.end();
    });
    const error = await createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY }).listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toContain('to another origin, https://127.0.0.1:');
  });

  it('a redirect within the origin is followed, with the key, to the page', async () => {
    const server = await startHostileServer((request, response) => {
      if (request.url!.startsWith('/api/v1/loads')) {
        response.writeHead(307, { Location: `/v1-moved${request.url}` });
        return void response.end();
      }
      sendJson(response, 200, page);
    });
    const result = await createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY }).listLoads();
    expect(result.data).toHaveLength(1);
    expect(server.requests.map((request) => request.url)).toEqual(['/api/v1/loads', '/v1-moved/api/v1/loads']);
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${MOCK_API_KEY}`);
  });

  it(`a redirect loop within the origin ends after ${MAX_REDIRECTS} hops with a RedirectError`, async () => {
    const server = await startHostileServer((request, response) => {
      response.writeHead(302, { Location: request.url === '/a' ? '/b' : '/a' });
      response.end();
    });
    const error = await createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY }).listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toMatch(new RegExp(`^127\\.0\\.0\\.1:${server.port} redirected more than ${MAX_REDIRECTS} times`));
    expect(server.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('a fetch that follows redirects whatever it is asked is checked where it ended', async () => {
    const elsewhere = await startHostileServer((_request, response) => sendJson(response, 200, page));
    const following = (request: Request) => fetch(new Request(request, { redirect: 'follow' }));
    const server = await startHostileServer((_request, response) => {
      response.writeHead(302, { Location: `${elsewhere.baseUrl}/api/v1/loads` });
      response.end();
    });
    const error = await createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, fetch: following }).listLoads().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).location).toBe(`${elsewhere.baseUrl}/api/v1/loads`);
    // It went there (the caller's fetch did), but without the key.
    expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
  });
});
