// `loadfeed` against a hostile server: `--timeout` bounds each request, and each of the SDK's refusals
// (a redirect elsewhere, a body too large, an off-contract row) ends the command with exit 1 and one line
// that says what was refused, with nothing written.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractRow, endlessBody, pageOf, sendJson, startHostileServer } from '../hostile-server.js';
import { runCli, useScratchFolder } from './run-cli.js';

const scratch = useScratchFolder();
const KEY = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';

describe('loadfeed against a hostile server', () => {
  it('sync --timeout ends each stalled request after that many seconds, retries, then fails naming the host', async () => {
    // Headers and the first bytes of the body, then silence.
    const server = await startHostileServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"data":[');
    });
    const out = join(scratch.path, 'stalled.ndjson');
    const result = await runCli(['sync', '--out', out, '--timeout', '0.2'], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    const failure = `no response from 127.0.0.1:${server.port} within 200 ms`;
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(`loadfeed: cannot reach the API: ${failure}`);
    expect(result.stderr).toContain(`retrying after ${failure}`);
    expect(server.requests).toHaveLength(5);
  });

  it('sync refuses a redirect to another origin with exit 1 and a line naming it', async () => {
    const elsewhere = await startHostileServer((_request, response) => sendJson(response, 200, pageOf([contractRow(1)])));
    const server = await startHostileServer((request, response) => {
      response.writeHead(302, { Location: `${elsewhere.baseUrl}${request.url}` });
      response.end();
    });
    const out = join(scratch.path, 'redirected.ndjson');
    const result = await runCli(['sync', '--out', out], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `loadfeed: 127.0.0.1:${server.port} redirected the request to another origin, ${elsewhere.baseUrl}: the base URL has moved, or something else answers there (the key was not sent there); if the deployment moved, set the base URL to it`,
    );
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('sync refuses a 10 GB body after the cap, once, and writes nothing', async () => {
    const server = await startHostileServer(endlessBody({ declareLength: false }));
    const out = join(scratch.path, 'huge.ndjson');
    const result = await runCli(['sync', '--out', out], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `loadfeed: the response from 127.0.0.1:${server.port} is larger than the client's maxResponseBytes (33554432 bytes): more than that arrived, and the rest was not read`,
    );
    expect(server.requests).toHaveLength(1);
    expect(await readFile(out, 'utf8').catch(() => '')).toBe('');
  });

  it('sync refuses a year-9999 updatedAt: exit 1, the row named, no cursor saved', async () => {
    const server = await startHostileServer((_request, response) => sendJson(response, 200, pageOf([contractRow(1, { updatedAt: '9999-12-31T23:59:59.999Z' })])));
    const out = join(scratch.path, 'future.ndjson');
    const result = await runCli(['sync', '--out', out], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: the server's response breaks the contract at \/data\/0\/updatedAt: 9999-12-31T23:59:59\.999Z is later than a day after the response's Date/);
    expect(await readFile(`${out}.state.json`, 'utf8').catch(() => 'no state')).toBe('no state');
  });

  it.each(['abc', '0.0001'])('--timeout %s is bad usage (exit 2)', async (value) => {
    const result = await runCli(['sync', '--out', join(scratch.path, 'x.ndjson'), '--timeout', value], { LOADFEED_BASE_URL: 'http://127.0.0.1:9', LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--timeout must be a number of seconds above 0 (got ${JSON.stringify(value)})`);
  });
});
