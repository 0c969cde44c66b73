import { LIST_LOADS_PATH, type Load, type LoadPage } from '@loadfeed/spec';
import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment } from './support/deployment.js';
import { startFaultProxy } from './support/fault-proxy.js';
import { FAULTS } from './support/faults.js';
import { checkNamed, runKit } from './support/run-kit.js';

const database = useTestDatabase();
/** Limits high enough that pacing never waits, so each run takes seconds. */
const FAST_LIMIT = 600;
let server: TestServer;
let otherCustomersRow: Load;

beforeAll(async () => {
  server = await startDeployment(database.url);
  const { second } = await issueKeys(server, FAST_LIMIT);
  const response = await fetch(`${server.baseUrl}${LIST_LOADS_PATH}?pageSize=1`, { headers: { authorization: `Bearer ${second}` } });
  otherCustomersRow = ((await response.json()) as LoadPage).data[0]!;
});
afterAll(async () => {
  await server?.stop();
});

it('the unaltered server seen through the proxy passes every required check', async () => {
  const proxy = await startFaultProxy(server.baseUrl);
  try {
    const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT) });
    expect(run.checks.filter((check) => check.level === 'required' && check.outcome === 'fail').map((check) => check.title)).toEqual([]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  } finally {
    await proxy.stop();
  }
});

it('reports a broken rule that only DECISIONS.md states as a warning, and still exits 0', async () => {
  const proxy = await startFaultProxy(server.baseUrl, {
    response: ({ headers: { 'www-authenticate': _dropped, ...headers }, ...answer }) => ({ ...answer, headers }),
  });
  try {
    const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT), grep: 'authentication/' });
    const check = checkNamed(run, /every 401 carries WWW-Authenticate: Bearer/);
    expect(check.level).toBe('warning');
    expect(check.outcome).toBe('warning');
    expect(check.message).toMatch(/WWW-Authenticate: \(none\)/);
    expect(run.stdout).toMatch(/^WARN {2}authentication › every 401 carries WWW-Authenticate/m);
    expect(run.exitCode, run.stdout).toBe(0);
  } finally {
    await proxy.stop();
  }
});

it('has at least 15 distinct faults, each caught by a check of its own rule', () => {
  expect(new Set(FAULTS.map((fault) => fault.name)).size).toBe(FAULTS.length);
  expect(FAULTS.length).toBeGreaterThanOrEqual(15);
  expect(new Set(FAULTS.map((fault) => fault.caughtBy.source)).size).toBe(FAULTS.length);
});

// Runs a few at once: each run is a Playwright process that mostly waits on its worker's restarts.
describe.concurrent('a deployment that breaks one rule fails the check named for it', () => {
  for (const fault of FAULTS) {
    it(`${fault.name}: caught by ${fault.caughtBy.source}`, async ({ expect }) => {
      const keys = await issueKeys(server, fault.rateLimit ?? FAST_LIMIT);
      const alteration = typeof fault.fault === 'function' ? fault.fault({ primaryKey: keys.primary, revokedKey: keys.revoked, otherCustomersRow }) : fault.fault;
      const proxy = await startFaultProxy(server.baseUrl, alteration);
      try {
        const run = await runKit({ baseUrl: proxy.baseUrl, keys, grep: fault.grep, exhaust: fault.exhaust ?? false });
        const check = checkNamed(run, fault.caughtBy);
        expect(check.outcome, `${check.title}\n${run.stdout}`).toBe('fail');
        expect(check.level).toBe('required');
        expect(run.exitCode).toBe(1);
      } finally {
        await proxy.stop();
      }
    });
  }
});
