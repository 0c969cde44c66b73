// `loadfeed sync --json` and its exit codes, against the real server: the summary says what the run did
// and why it stopped, however it stopped; the rate limit that outlasts every retry stops the sync with
// its checkpoint saved and exit 3, apart from a real failure's 1.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SyncReport } from '../../src/cli/sync.js';
import { loadInputs } from '../helpers.js';
import { useTestServer } from '../integration/fixture.js';
import { DESTINATIONS } from './copies.js';
import { startRelay } from './relay.js';
import { SLOW_TEST_MS, runCli, useScratchFolder } from './run-cli.js';

const kit = useTestServer();
const scratch = useScratchFolder();
const destination = DESTINATIONS[0]!;

async function customerWith(count: number) {
  const customer = await kit.customer();
  for (let from = 1; from <= count; from += 4) await kit.server.importLoads(customer.code, loadInputs(Math.min(4, count - from + 1), from));
  return customer;
}

describe('loadfeed sync --json', () => {
  it('prints one JSON summary on stdout: rows, requests, cursor, seconds, the page size served and why it stopped', async () => {
    const customer = await customerWith(12);
    const file = join(scratch.path, `json-${customer.code}`);

    const result = await runCli(['sync', ...destination.args(file), '--json'], { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key });

    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as SyncReport;
    const served = await customer.served();
    // One page, and the count of the pickup range the copy is compared with (README "Removals").
    expect(report).toMatchObject({ stopped: 'end-of-feed', exitCode: 0, rows: 12, requests: 2, removed: 0, removalsPending: 0, recovered: 0, cursor: served.at(-1)!.updatedAt, pageSize: 100 });
    expect(report.seconds).toBeGreaterThanOrEqual(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a rate limit that outlasts every retry stops the sync with its checkpoint saved: exit 3, and the next run resumes', async () => {
    const customer = await customerWith(20);
    const file = join(scratch.path, `limited-${customer.code}`);
    // From the fourth request on, every answer is a 429 (Retry-After 0, so that the retries take no time).
    const relay = await startRelay(kit.server.baseUrl, {
      answer: (n) =>
        n >= 4 ? { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: '{"error":"Rate limit exceeded"}' } : undefined,
    });
    let limited;
    try {
      limited = await runCli(['sync', ...destination.args(file), '--page-size', '5', '--json'], { LOADFEED_BASE_URL: relay.url, LOADFEED_API_KEY: customer.key });
    } finally {
      await relay.close();
    }

    expect(limited.code).toBe(3);
    const report = JSON.parse(limited.stdout) as SyncReport;
    const saved = await destination.read(file);
    expect(report).toMatchObject({ stopped: 'rate-limit', exitCode: 3, rows: saved.loads.length, cursor: saved.cursor });
    expect(report.rows).toBeGreaterThan(0);
    expect(report.message).toMatch(/^stopped by the rate limit \(it lifts at \S+\); stopped cleanly at cursor \S+, the next run resumes from there$/);
    expect(limited.stderr).toContain(`loadfeed: ${report.message}\n`);

    const resumed = await runCli(['sync', ...destination.args(file), '--json'], { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key });
    expect(resumed.code).toBe(0);
    expect((await destination.read(file)).loads).toHaveLength(20);
  }, SLOW_TEST_MS);

  it('a deployment that refuses the large default page with a 400: the sync says so and copies at 100 a page', async () => {
    const customer = await customerWith(6);
    const file = join(scratch.path, `refusing-${customer.code}`);
    const refusal = { error: 'Invalid query parameters', details: ['pageSize: must be at most 100'] };
    const relay = await startRelay(kit.server.baseUrl, {
      answer: (_n, url) =>
        new URL(url, 'http://relay').searchParams.get('pageSize') === '1000'
          ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify(refusal) }
          : undefined,
    });
    let result;
    try {
      result = await runCli(['sync', ...destination.args(file), '--json'], { LOADFEED_BASE_URL: relay.url, LOADFEED_API_KEY: customer.key });
    } finally {
      await relay.close();
    }

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('loadfeed: the deployment refused pageSize=1000 (400: Invalid query parameters); asking for 100 a page instead\n');
    expect(JSON.parse(result.stdout)).toMatchObject({ stopped: 'end-of-feed', rows: 6, requests: 3, pageSize: 100 });
    expect((await destination.read(file)).loads).toHaveLength(6);
  });

  it('a real failure is exit 1, with the same summary saying it failed and why', async () => {
    const file = join(scratch.path, 'refused');

    const result = await runCli(['sync', ...destination.args(file), '--json'], {
      LOADFEED_BASE_URL: kit.server.baseUrl,
      LOADFEED_API_KEY: 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000',
    });

    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ stopped: 'failed', exitCode: 1, rows: 0, cursor: null, message: expect.stringMatching(/^the API key was refused \(401\)/) });
  });
});
