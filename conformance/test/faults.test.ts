import { LIST_LOADS_PATH, type Load, type LoadPage } from '@loadfeed/spec';
import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment } from './support/deployment.js';
import { startFaultProxy, type Fault } from './support/fault-proxy.js';
import { RULES } from '../src/coverage.js';
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
    // Each required check verifies a SPEC rule of the coverage table, so the table leaves none out.
    const uncovered = run.checks.filter((check) => check.level === 'required' && !RULES.some((rule) => rule.checks?.test(check.title)));
    expect(uncovered.map((check) => check.title)).toEqual([]);
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

/** The indented lines under a check's FAIL line in the console. */
function failureBlock(stdout: string, title: string): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('FAIL  ') && line.endsWith(title));
  const block: string[] = [];
  for (let i = start + 1; start !== -1 && i < lines.length && lines[i]!.startsWith('        '); i += 1) block.push(lines[i]!.trim());
  return block;
}

it('plans with SPEC\'s default, not a limit of 0, when X-RateLimit-Limit says 0', async () => {
  const proxy = await startFaultProxy(server.baseUrl, FAULTS.find((fault) => /Limit: 0/.test(fault.name))!.fault as Fault);
  try {
    const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT), grep: 'rate-limit/' });
    expect(run.stdout).toMatch(/limit unknown: the rate headers are x-ratelimit-limit: 0 is a limit that admits no request.*planning with 10\/min/);
    expect(run.stdout).not.toMatch(/at 0\/min/);
  } finally {
    await proxy.stop();
  }
});

describe('the settled-horizon header (X-Feed-Settled-Through), optional', () => {
  const horizon = (value: (page: LoadPage) => string): Fault => ({
    response: (answer) => (answer.status === 200 && Array.isArray((answer.body as LoadPage).data) ? { ...answer, headers: { ...answer.headers, 'x-feed-settled-through': value(answer.body as LoadPage) } } : answer),
  });
  const cases = [
    { what: 'earlier than a row it serves', fault: horizon((page) => new Date(Date.parse(page.data.at(-1)?.updatedAt ?? '2026-01-01T00:00:00.000Z') - 1).toISOString()), message: /newer|stamped after/ },
    { what: 'not a date-time in the response form', fault: horizon(() => 'yesterday'), message: /not a date-time/ },
  ];
  for (const { what, fault, message } of cases) {
    it(`is reported as a warning when ${what}`, async () => {
      const proxy = await startFaultProxy(server.baseUrl, fault);
      try {
        const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT), grep: 'delta/' });
        const check = checkNamed(run, /X-Feed-Settled-Through/);
        expect(check.outcome, run.stdout).toBe('warning');
        expect(check.message).toMatch(message);
      } finally {
        await proxy.stop();
      }
    });
  }

  it('passes when every row is at or before it', async () => {
    const proxy = await startFaultProxy(server.baseUrl, horizon(() => new Date().toISOString()));
    try {
      const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT), grep: 'delta/' });
      expect(checkNamed(run, /X-Feed-Settled-Through/).outcome, run.stdout).toBe('pass');
      expect(run.exitCode, run.stdout).toBe(0);
    } finally {
      await proxy.stop();
    }
  });

  it('is skipped as optional, and leaves the run passed, when the deployment never sends it', async () => {
    // The reference server sends the header on every page; this proxy takes it off every response.
    const proxy = await startFaultProxy(server.baseUrl, {
      response: ({ headers: { 'x-feed-settled-through': _dropped, ...headers }, ...answer }) => ({ ...answer, headers }),
    });
    try {
      const run = await runKit({ baseUrl: proxy.baseUrl, keys: await issueKeys(server, FAST_LIMIT), grep: 'delta/' });
      expect(checkNamed(run, /X-Feed-Settled-Through/).outcome, run.stdout).toBe('skip');
      expect(run.exitCode, run.stdout).toBe(0);
    } finally {
      await proxy.stop();
    }
  });
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
        // The console says what broke and how to see it again, without the key.
        const lines = failureBlock(run.stdout, check.title);
        expect(lines, run.stdout).toEqual([
          expect.any(String),
          expect.stringMatching(/^expected: ./),
          expect.stringMatching(/^actual: {3}./),
          expect.stringMatching(/^source: {3}SPEC §\d.*: ./),
          expect.stringMatching(/^replay: {3}curl -sS -i .*'http:\/\/127\.0\.0\.1:\d+\/api\/v1\//),
        ]);
        for (const key of Object.values(keys)) expect(run.stdout + run.stderr).not.toContain(key);
      } finally {
        await proxy.stop();
      }
    });
  }
});
