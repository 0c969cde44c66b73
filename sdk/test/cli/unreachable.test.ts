// An API that cannot be reached: every retry notice and the last line say which host and port, and why
// (ECONNREFUSED, ENOTFOUND…), instead of "fetch failed".
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useScratchFolder } from './run-cli.js';

const scratch = useScratchFolder();
const KEY = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';

/** A loopback port that nothing listens on: one the system just gave out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const REFUSED = 'ECONNREFUSED: connection refused: nothing listens there';

describe('an unreachable API', () => {
  it('loadfeed list names the host, the port and the cause in each retry notice and in its last line', async () => {
    const port = await closedPort();
    const result = await runCli(['list'], { LOADFEED_BASE_URL: `http://127.0.0.1:${port}`, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    const failure = `the request to 127.0.0.1:${port} failed (${REFUSED})`;
    expect(lines.slice(0, -1)).toEqual(Array.from({ length: 4 }, () => expect.stringMatching(new RegExp(`^loadfeed: ${escape(failure)}; retrying in \\d+s$`))));
    expect(lines.at(-1)).toBe(`loadfeed: cannot reach the API: ${failure}`);
    expect(result.stderr).not.toContain(KEY);
  });

  it('loadfeed sync says the same in its retry lines and its last line', async () => {
    const port = await closedPort();
    const result = await runCli(['sync', '--out', join(scratch.path, 'unreachable.ndjson')], { LOADFEED_BASE_URL: `http://127.0.0.1:${port}`, LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    const failure = `the request to 127.0.0.1:${port} failed (${REFUSED})`;
    expect(lines.filter((line) => line.startsWith('retrying after'))).toEqual(
      Array.from({ length: 4 }, () => expect.stringMatching(new RegExp(`^retrying after ${escape(failure)} in \\d+s$`))),
    );
    expect(lines.at(-1)).toBe(`loadfeed: cannot reach the API: ${failure}`);
  });

  it('a host that does not resolve is named, with the DNS error', async () => {
    const result = await runCli(['list'], { LOADFEED_BASE_URL: 'http://no-such-host.invalid:8080', LOADFEED_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: cannot reach the API: the request to no-such-host\.invalid:8080 failed \((ENOTFOUND: no such host|EAI_AGAIN: .+)\)$/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
