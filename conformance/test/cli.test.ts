import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment, type Keys } from './support/deployment.js';
import { runCli, runKit } from './support/run-kit.js';

const database = useTestDatabase();
let server: TestServer;
let keys: Keys;

beforeAll(async () => {
  server = await startDeployment(database.url);
  keys = await issueKeys(server, 600);
});
afterAll(async () => {
  await server?.stop();
});

function oneLine(stderr: string): string {
  return stderr.split('\n').find((line) => line.startsWith('loadfeed-conformance: ')) ?? '';
}

describe('exit code 2: bad usage or a deployment the kit cannot use, with a one-line reason', () => {
  it('without an API key', async () => {
    const run = await runCli(['--base-url', server.baseUrl], {});
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/API key is missing.*LOADFEED_API_KEY/);
  });

  it('without a base URL, the key given in the environment', async () => {
    const run = await runCli([], { LOADFEED_API_KEY: keys.primary });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/base URL is missing/);
  });

  it('with an unknown flag', async () => {
    const run = await runCli(['--base-url', server.baseUrl, '--frobnicate'], { LOADFEED_API_KEY: keys.primary });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/frobnicate/);
  });

  it("when the second key is the API key itself, not another customer's", async () => {
    const run = await runCli(['--base-url', server.baseUrl], { LOADFEED_API_KEY: keys.primary, LOADFEED_SECOND_KEY: keys.primary });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/second key is the API key itself/);
  });

  it('when nothing listens at the base URL', async () => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:9'], { LOADFEED_API_KEY: keys.primary });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it('when --grep matches no check', async () => {
    const reportDir = await mkdtemp(join(tmpdir(), 'loadfeed-kit-'));
    const run = await runCli(['--base-url', server.baseUrl, '--report-dir', reportDir, '--grep', 'no-such-check'], { LOADFEED_API_KEY: keys.primary });
    await rm(reportDir, { recursive: true, force: true });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/no check matches --grep no-such-check/);
  });

  it('when the deployment refuses the key', async () => {
    const reportDir = await mkdtemp(join(tmpdir(), 'loadfeed-kit-'));
    const run = await runCli(['--base-url', server.baseUrl, '--report-dir', reportDir], { LOADFEED_API_KEY: keys.revoked });
    await rm(reportDir, { recursive: true, force: true });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/the API key was refused/);
  });
});

it('keeps every key out of its console output and its reports', async () => {
  const found: string[] = [];
  const run = await runKit({
    baseUrl: server.baseUrl,
    keys,
    grep: 'authentication/|isolation/',
    inspectReport: async (reportDir) => {
      for (const entry of await readdir(reportDir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const raw = await readFile(join(entry.parentPath, entry.name));
        // Attachments travel base64-encoded inside the JSON report: decode every base64 run too.
        const decoded = [...raw.toString('latin1').matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)].map((match) => Buffer.from(match[0], 'base64').toString('latin1'));
        for (const text of [raw.toString('latin1'), ...decoded]) {
          for (const key of Object.values(keys)) if (text.includes(key)) found.push(`${entry.name} holds a key`);
        }
      }
    },
  });
  expect(run.exitCode, run.stdout).toBe(0);
  for (const key of Object.values(keys)) expect(run.stdout + run.stderr).not.toContain(key);
  expect(found).toEqual([]);
});
