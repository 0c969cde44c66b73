// The data deployments really have, each behind a key of SPEC §8's default limit (DEFAULT_RATE_LIMIT): one bulk
// load whose rows all share one updatedAt, a few rows, and tens of thousands of rows spread over months.
// Every required check must run on each (none skipped for want of data or budget) and pass, within 60
// requests for a full run, the exhaust check included, and without a 429 outside it.
import { DEFAULT_RATE_LIMIT } from '@loadfeed/spec';
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importInBatches, loadsOf } from './support/loads.js';
import { restamp, tiedGroups } from './support/stamps.js';
import { runKit, type KitRun } from './support/run-kit.js';

const database = useTestDatabase();
const LIMIT = DEFAULT_RATE_LIMIT;
const FULL_RUN_REQUESTS_MAX = 60;
const DAY_MS = 86_400_000;
const OTHER = 'OTHER';

/** Each shape: its loads (pickups spread over the last year) and their updatedAt history. */
const SHAPES = [
  { customer: 'TIED', rows: 1500, groupSize: 1500, spacingMs: 0, note: 'one bulk load: every row at one instant' },
  { customer: 'FEW', rows: 4, groupSize: 1, spacingMs: 30 * DAY_MS, note: 'four rows a month apart' },
  { customer: 'MANY', rows: 20_000, groupSize: 3, spacingMs: 20 * 60_000, note: 'twenty thousand rows over nine months, in threes' },
] as const;

let server: TestServer;
const runs = new Map<string, { run: KitRun; seconds: number }>();

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: database.url });
  await server.createCustomer(OTHER);
  await importInBatches(server, OTHER, loadsOf('OT', 10), 10);
  for (const shape of SHAPES) {
    await server.createCustomer(shape.customer);
    const loads = loadsOf(shape.customer.slice(0, 2), shape.rows, Math.min(60, 340 / shape.rows));
    await importInBatches(server, shape.customer, loads, 1000);
    await restamp(database.url, shape.customer, tiedGroups(loads.map((load) => load.loadNumber), shape.groupSize, shape.spacingMs));
  }
  // The runs spend most of their time waiting on their keys' windows, so they go side by side.
  await Promise.all(
    SHAPES.map(async (shape) => {
      const primary = await server.createKey(shape.customer, { rateLimit: LIMIT });
      const second = await server.createKey(OTHER, { rateLimit: LIMIT });
      const revoked = await server.createKey(shape.customer, { rateLimit: LIMIT });
      await server.revokeKey(revoked.id);
      const started = Date.now();
      const run = await runKit({ baseUrl: server.baseUrl, keys: { primary: primary.key, second: second.key, revoked: revoked.key }, exhaust: true });
      runs.set(shape.customer, { run, seconds: Math.round((Date.now() - started) / 1000) });
    }),
  );
}, 900_000);
afterAll(async () => {
  await server?.stop();
});

describe.each(SHAPES)(`$customer: $note, a key of ${DEFAULT_RATE_LIMIT} a minute, a full run`, ({ customer }) => {
  it('runs every required check, skipping none for data or budget, and every one passes (exit 0)', () => {
    const { run } = runs.get(customer)!;
    const required = run.checks.filter((check) => check.level === 'required');
    expect(required.length).toBeGreaterThan(40);
    expect(required.filter((check) => check.outcome !== 'pass').map((check) => `${check.outcome}: ${check.title}\n${check.message}`)).toEqual([]);
    expect(run.exitCode, run.stdout).toBe(0);
  });

  it(`spends at most ${FULL_RUN_REQUESTS_MAX} requests and meets no 429 outside the exhaust check`, () => {
    const { run, seconds } = runs.get(customer)!;
    console.info(`${customer}: ${run.metadata?.requests} requests (exhaust burst ${run.metadata?.exhaustBurst}) in ${seconds} s`);
    expect(run.metadata!.requests).toBeLessThanOrEqual(FULL_RUN_REQUESTS_MAX);
    // Had the burst found the window empty, it would have taken the whole limit and the 429.
    expect(run.metadata!.requests - run.metadata!.exhaustBurst + LIMIT + 1).toBeLessThanOrEqual(FULL_RUN_REQUESTS_MAX);
    expect(run.metadata!.unexpected429).toBe(0);
  });
});
