// `loadfeed sync` and `loadfeed verify` against deployments that each break one rule SPEC implies of its
// pages, into every destination: the sync ends with an error that names the deployment's fault, or with an
// exact copy; never exit 0 with a wrong copy. A row a deployment stamps in the past, behind the pages a
// sync has read, the walk cannot see: the comparison of counts at the sync's end finds and writes it.
import { join } from 'node:path';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { LOAD_FIELDS, type Load } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { contractRow } from '../hostile-server.js';
import { startBrokenDeployment, type Breakage } from '../broken-deployment.js';
import { everyDestination, type DestinationCase } from './copies.js';
import { SLOW_TEST_MS, runCli, useScratchFolder } from './run-cli.js';

const scratch = useScratchFolder();
const customerDatabase = useTestDatabase();
const KEY = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';

/** A load as the API serves it, whatever the copy's types made of its values. */
const asServed = (load: Load) => Object.fromEntries(LOAD_FIELDS.map((field) => [field, load[field] ?? null]));

/**
 * The copy holds only rows the feed serves, each as served, and every row stamped before its cursor; with
 * exit 0, it holds the whole feed.
 */
function expectNeverSilentlyWrong(exitCode: number | null, copy: { loads: Load[]; cursor: string | undefined }, feed: Load[]): void {
  const served = new Map(feed.map((load) => [load.loadNumber, asServed(load)]));
  for (const load of copy.loads) expect(asServed(load)).toEqual(served.get(load.loadNumber));
  const copied = new Set(copy.loads.map((load) => load.loadNumber));
  const owed = feed.filter((load) => copy.cursor !== undefined && Date.parse(load.updatedAt) < Date.parse(copy.cursor));
  expect(owed.filter((load) => !copied.has(load.loadNumber)).map((load) => load.loadNumber)).toEqual([]);
  if (exitCode === 0) expect(copy.loads.map((load) => load.loadNumber).sort()).toEqual(feed.map((load) => load.loadNumber).sort());
}

const FAULTS: { breakage: Breakage; names: RegExp }[] = [
  { breakage: 'short pages', names: /at \/data: holds 99 rows while hasMore is true and pageSize is 100/ },
  { breakage: 'loadNumber order', names: /at \/data\/\d+\/updatedAt: \S+ is before the row above it/ },
  { breakage: 'hasMore false on page 1', names: /at \/hasMore: is false, but totalCount is 1000 while pages 1 to 1 \(100 a page\) hold 100 rows/ },
  { breakage: 'a loadNumber twice', names: /at \/data\/20\/loadNumber: L\d+ is on this page twice/ },
];

const destinations: DestinationCase[] = everyDestination(customerDatabase);

describe.each(destinations)('loadfeed sync into $name against a broken deployment', (destination) => {
  it.each(FAULTS)(
    '$breakage: exit 1 naming the fault, and the copy holds nothing wrong',
    async ({ breakage, names }) => {
      const server = await startBrokenDeployment(breakage);
      const file = join(scratch.path, `broken-${breakage.replace(/\W+/g, '-')}`);
      const env = { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY };

      const result = await runCli(['sync', ...destination.args(file)], env);

      expect(result.code).toBe(1);
      const line = result.stderr.trimEnd().split('\n').at(-1)!;
      expect(line).toMatch(/^loadfeed: the deployment broke the contract in its answer to page \d+ from updatedSince=\S+ \(asked twice\) at /);
      expect(line).toMatch(names);
      expect(line).toMatch(/nothing of that answer was written, and the cursor did not move$/);
      expectNeverSilentlyWrong(result.code, await destination.read(file).catch(() => ({ loads: [], cursor: undefined })), server.feed());
    },
    SLOW_TEST_MS,
  );

  it(
    'a settled header that lies, a row appearing inside the pages read by number: an exact copy (the walk goes back by key)',
    async () => {
      const late = contractRow(5_000, { updatedAt: '2026-01-01T00:20:00.001Z' });
      const server = await startBrokenDeployment('a settled header that lies', { late: { afterRequest: 4, row: late } });
      const file = join(scratch.path, 'lie-inside');
      const result = await runCli(['sync', ...destination.args(file)], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
      expect(result.stderr).not.toMatch(/loadfeed: /);
      expect(result.code).toBe(0);
      expectNeverSilentlyWrong(result.code, await destination.read(file), server.feed());
    },
    SLOW_TEST_MS,
  );

  it(
    'a settled header that lies, a row appearing before the last page: exit 1 naming the lie',
    async () => {
      const late = contractRow(5_000, { updatedAt: '2026-01-01T00:20:00.001Z' });
      // Page 1 by key, the stretch's reference, then its pages 1-10: the row appears before page 10.
      const server = await startBrokenDeployment('a settled header that lies', { late: { afterRequest: 11, row: late } });
      const file = join(scratch.path, 'lie-last');
      const result = await runCli(['sync', ...destination.args(file)], { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY });
      expect(result.code).toBe(1);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: the deployment broke the contract in its answer to the count from updatedSince=\S+ at \/totalCount: grew from 920 to 921/);
      expectNeverSilentlyWrong(result.code, await destination.read(file), server.feed());
    },
    SLOW_TEST_MS,
  );

  it(
    'a settled header that lies, a row appearing behind the pages read: an exact copy (the counts find the row), the fault named, verify agrees',
    async () => {
      const late = contractRow(5_000, { updatedAt: '2026-01-01T00:01:00.001Z' });
      const server = await startBrokenDeployment('a settled header that lies', { late: { afterRequest: 1, row: late } });
      const file = join(scratch.path, 'lie-behind');
      const env = { LOADFEED_BASE_URL: server.baseUrl, LOADFEED_API_KEY: KEY };

      const result = await runCli(['sync', ...destination.args(file)], env);

      expect(result.code).toBe(0);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^loadfeed: the deployment served 1 row stamped behind pages already read \(its feed was not settled as it said/);
      expectNeverSilentlyWrong(result.code, await destination.read(file), server.feed());
      const verify = await runCli(['verify', ...destination.args(file), '--json'], env);
      expect(verify.code).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ complete: true, served: 1_001, equal: 1_001, missing: 0 });
    },
    SLOW_TEST_MS,
  );
});
