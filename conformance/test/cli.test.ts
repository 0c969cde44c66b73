import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { exitCodeHelp, exitCodeMarkdown } from '@loadfeed/spec/cli';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment, type Keys } from './support/deployment.js';
import { startFaultProxy } from './support/fault-proxy.js';
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

  it('--help lists the exit codes, and README.md shows them, as the kit\'s rows of the one table give them', async () => {
    const run = await runCli(['--help'], {});
    expect(run.exitCode).toBe(0);
    for (const code of ['0    passed', '1    failed', '2    not tested', '3    incomplete']) expect(run.stdout).toContain(code);
    expect(run.stdout).toContain(`${exitCodeHelp('loadfeed-conformance', 'Exit codes (every report of the run says the same):')}\n`);
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\n${exitCodeMarkdown('loadfeed-conformance')}\n\n`);
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

describe('exit code 3: nothing failed, but required checks could not run', () => {
  it('names each check that could not run, why, and what would let it run; JSON and JUnit say the same', async () => {
    let junit = '';
    let lastRun: unknown;
    let summary: { result?: string; exitCode?: number; notRun?: { check: string; needs: string }[] } = {};
    const run = await runKit({
      baseUrl: server.baseUrl,
      keys: { primary: keys.primary },
      grep: 'isolation/',
      inspectReport: async (reportDir) => {
        junit = await readFile(join(reportDir, 'junit.xml'), 'utf8');
        summary = JSON.parse(await readFile(join(reportDir, 'budget.json'), 'utf8')) as typeof summary;
        lastRun = JSON.parse(await readFile(join(reportDir, 'test-results', '.last-run.json'), 'utf8'));
      },
    });
    expect(run.exitCode, run.stdout).toBe(3);
    // Only skips: Playwright alone would call this run passed, and a CI reading JUnit would show a pass.
    expect(lastRun).toMatchObject({ status: 'failed', loadfeed: { result: 'incomplete', exitCode: 3 } });
    expect(junit).toMatch(/<testcase name="the run's result: incomplete"[^>]*>\s*<error message="incomplete: /);
    expect(run.stdout).toMatch(/result: incomplete: no required check failed, but some could not run, so the run has not passed \(exit 3\)/);
    expect(run.stdout).toMatch(/why: no second customer key given \(--second-key\)\n\s+needs: a key of another customer/);
    expect(run.stdout).not.toMatch(/every required check ran and passed/);
    expect(summary).toMatchObject({ result: 'incomplete', exitCode: 3 });
    expect(summary.notRun).toHaveLength(run.checks.length);
    expect(junit).toMatch(/<testsuites [^>]*name="loadfeed-conformance: incomplete \(exit 3\)/);
  });

  it('is not the outcome of a check the caller left out: --no-exhaust alone still exits 0', async () => {
    const run = await runKit({ baseUrl: server.baseUrl, keys, grep: 'rate-limit/' });
    expect(run.checks.filter((check) => check.outcome === 'skip').map((check) => check.title)).toEqual([
      expect.stringMatching(/going past the limit/),
      expect.stringMatching(/after waiting Retry-After/),
    ]);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/§7 {2}past the rate limit.*not verified/);
  });
});

describe('the reports', () => {
  it('locate each check at its own spec file, group summary.html by SPEC section, count warnings as warnings, and leave no empty folder', async () => {
    const locations: string[] = [];
    const empty: string[] = [];
    let html = '';
    // The typo'd parameter is a warning against a deployment that ignores unknown parameters.
    const proxy = await startFaultProxy(server.baseUrl, { request: (url) => url.searchParams.delete('updatedsince') });
    try {
      const run = await runKit({
        baseUrl: proxy.baseUrl,
        keys,
        grep: 'errors/|pagination/',
        inspectReport: async (reportDir) => {
          const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as { suites: { specs: { file: string; line: number }[]; suites?: unknown[] }[] };
          for (const suite of report.suites) for (const spec of suite.specs) locations.push(`${spec.file}:${spec.line}`);
          html = await readFile(join(reportDir, 'summary.html'), 'utf8');
          for (const entry of await readdir(reportDir, { recursive: true, withFileTypes: true })) {
            if (entry.isDirectory() && (await readdir(join(entry.parentPath, entry.name))).length === 0) empty.push(entry.name);
          }
        },
      });
      expect(run.checks.filter((check) => check.outcome === 'warning').map((check) => check.title)).toEqual([expect.stringMatching(/unknown parameter/)]);
      expect(locations.length).toBe(run.checks.length);
      for (const location of locations) expect(location).toMatch(/(^|\/)(tests\/)?(errors|pagination)\/[a-z-]+\.spec\.[jt]s:\d+$/);
      expect(new Set(locations).size).toBeGreaterThan(5);
      expect(html).toMatch(/<h2>SPEC §4 <small>\([^)]*\)<\/small><\/h2>/);
      expect(html).toMatch(/<h2>SPEC §7 <small>\(\d+ passed, 1 warning\)<\/small><\/h2>/);
      expect(html).toMatch(/<h2>Requirement coverage<\/h2>/);
      expect(empty).toEqual([]);
    } finally {
      await proxy.stop();
    }
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
