// The common base-URL mistakes, made against a deployment on loopback: `loadfeed` names the mistake and
// the base URL to use, after one failed request and one or two for the OpenAPI document, and sends
// nothing more.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBody } from '../fault-server.js';
import { runCli, useScratchFolder } from './run-cli.js';

const KEY = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';
const scratch = useScratchFolder();
const requests: string[] = [];
let server: Server;
let deployment: string;

beforeAll(async () => {
  // SPEC's paths and nothing else; everything else is a web server's HTML 404.
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/api/v1/openapi.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.1.0"}');
    if (request.url?.startsWith('/api/v1/loads')) return void response.writeHead(200, { 'content-type': 'application/json' }).end(pageBody());
    response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not Found</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deployment = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a wrong base URL', () => {
  it.each([
    ['list', []],
    ['sync', ['--out', 'copy.ndjson']],
  ])('loadfeed %s with a trailing /api/v1 says to leave it out, in three requests', async (command, flags) => {
    requests.length = 0;
    const result = await runCli([command, ...flags.map((flag) => (flag.endsWith('.ndjson') ? `${scratch.path}/${flag}` : flag))], { LOADFEED_BASE_URL: `${deployment}/api/v1`, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `loadfeed: the base URL is wrong: ${deployment}/api/v1/api/v1/openapi.json answered 404 with an HTML page, not the API's OpenAPI document: ` +
        `the base URL ends in /api/v1, which the paths already carry (they start with /api/v1); use --base-url ${deployment}`,
    );
    expect(requests).toEqual([expect.stringMatching(/^\/api\/v1\/api\/v1\/loads(\?|$)/), '/api/v1/api/v1/openapi.json', '/api/v1/openapi.json']);
    expect(result.stderr).not.toContain(KEY);
  });

  it('--base-url naming a page of a site that answers HTML says so', async () => {
    requests.length = 0;
    const result = await runCli(['list', '--base-url', `${deployment}/docs/start.html`], { LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: the base URL is wrong: .*answered 404 with an HTML page.*; use --base-url http:\/\/127\.0\.0\.1:\d+$/);
    expect(requests).toHaveLength(3);
  });

  it('loadfeed list against https on a plain-HTTP server keeps the whole hint on its one line, the fix included', async () => {
    const result = await runCli(['list', '--base-url', deployment.replace('http:', 'https:')], { LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: the base URL is wrong: https:\/\/127\.0\.0\.1:\d+ speaks plain HTTP, not HTTPS \(.+\); use --base-url http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('a right base URL is left alone: the command runs as before', async () => {
    const result = await runCli(['list', '--json'], { LOADFEED_BASE_URL: deployment, LOADFEED_API_KEY: KEY });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ totalCount: 3 });
    expect(result.code).toBe(0);
  });
});
