import type { TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKeys, startDeployment } from './support/deployment.js';
import { runKit, type KitRun } from './support/run-kit.js';

const database = useTestDatabase();
const PACED_LIMIT = 5;
let server: TestServer;

beforeAll(async () => {
  server = await startDeployment(database.url);
});
afterAll(async () => {
  await server?.stop();
});

let run: KitRun;
let paced: KitRun;
beforeAll(async () => {
  // Both runs spend most of their time waiting on the rate window, so they run side by side. The full
  // run's limit is one its other checks stay under, so its burst is short and one Retry-After is waited;
  // the paced run's limit is below what its checks need, so it must wait for the window instead.
  [run, paced] = await Promise.all([
    runKit({ baseUrl: server.baseUrl, keys: await issueKeys(server, 40), exhaust: true }),
    runKit({ baseUrl: server.baseUrl, keys: await issueKeys(server, PACED_LIMIT), grep: 'pagination/' }),
  ]);
}, 200_000);

describe('a run that needs more requests than the key allows a minute', () => {
  it('paces itself from the rate headers: it passes and never meets a 429', () => {
    expect(paced.exitCode, paced.stdout).toBe(0);
    expect(paced.metadata?.requests).toBeGreaterThan(PACED_LIMIT);
    expect(paced.metadata?.unexpected429).toBe(0);
  });
});

describe('a full run against the reference server, the exhaust check included', () => {
  it('exits 0', () => {
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  });

  it('passes every required check, skipping none', () => {
    const required = run.checks.filter((check) => check.level === 'required');
    expect(required.length).toBeGreaterThan(40);
    expect(required.filter((check) => check.outcome !== 'pass').map((check) => `${check.outcome}: ${check.title}\n${check.message}`)).toEqual([]);
  });

  it('raises no warning against the reference server, which follows DECISIONS.md', () => {
    expect(run.checks.filter((check) => check.outcome === 'warning').map((check) => `${check.title}: ${check.message}`)).toEqual([]);
  });

  it('meets a 429 only in the exhaust check', () => {
    expect(run.metadata?.unexpected429).toBe(0);
    expect(run.metadata?.exhaustBurst).toBeGreaterThan(0);
  });

  it('would spend at most 60 requests against a key of 10 a minute, its burst then being at most 11', () => {
    const requests = run.metadata!.requests - run.metadata!.exhaustBurst + 11;
    expect(requests).toBeLessThanOrEqual(60);
  });

  it('prints one line per check and a summary', () => {
    const lines = run.stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP|WARN) {2}/.test(line));
    expect(lines).toHaveLength(run.checks.length);
    expect(run.stdout).toMatch(/plan: ~\d+ requests, ~\d+ minutes? at 40\/min/);
    expect(run.stdout).toMatch(/\d+ checks — \d+ passed, 0 failed/);
  });
});
