// `loadfeed sync` against the real reference server: the copy equals what the API serves, a re-run picks
// up changes without duplicating a row, the key comes from the environment, and logs are plain off a TTY.
import { join } from 'node:path';
import type { Load } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { loadInput } from '../helpers.js';
import { useTestServer, type Customer } from '../integration/fixture.js';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { byLoadNumber, everyDestination, readNdjson } from './copies.js';
import { SLOW_TEST_MS, runCli, useScratchFolder } from './run-cli.js';

const kit = useTestServer();
const scratch = useScratchFolder();
/** The customer's own PostgreSQL, apart from the server's database. */
const customerDatabase = useTestDatabase();

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + offset * DAY_MS + 13 * 3_600_000 + 123).toISOString();

/** Every field of the contract set, every other load: each column type of a copy carries a value. */
const everyField = (n: number) =>
  n % 2 === 0
    ? {}
    : {
        billingRefNumber: `BR-${n}`,
        originZip: '75201',
        originWarehouse: 'Dock 4',
        destinationCity: 'Memphis',
        destinationState: 'TN',
        destinationZip: '38103',
        destinationWarehouse: 'North Yard',
        scheduledPickupTime: '08:30',
        scheduledDeliveryDate: day(9),
        scheduledDeliveryTime: '17:05',
        tenderedDate: day(-3),
        actualPickupDate: day(-1),
        actualDeliveryDate: day(0),
        requestedDeliveryDate: day(10),
        miles: `${n}.50`,
        totalCost: `${1200 + n}.05`,
      };

/** A customer with `count` loads written in batches, so that some rows share an updatedAt and some do not. */
async function customerWithLoads(count: number): Promise<Customer> {
  const customer = await kit.customer();
  for (let from = 1; from <= count; from += 7) {
    await kit.server.importLoads(
      customer.code,
      Array.from({ length: Math.min(7, count - from + 1) }, (_, index) => loadInput(from + index, everyField(from + index))),
    );
  }
  return customer;
}

const environmentOf = (customer: Customer) => ({ LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key });
const newest = (loads: readonly Load[]) => loads.map((load) => load.updatedAt).sort().at(-1);

describe.each(everyDestination(customerDatabase))('loadfeed sync into $name', (destination) => {
  it('a first sync holds exactly what the API serves, one row per load, and saves the newest updatedAt as the cursor', async () => {
    const customer = await customerWithLoads(30);
    const file = join(scratch.path, `first-${customer.code}`);

    const result = await runCli(['sync', ...destination.args(file), '--page-size', '6'], environmentOf(customer));

    expect(result.stderr).not.toMatch(/loadfeed: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^synced 30 rows in \d+ requests; cursor /);
    const served = await customer.served();
    const copy = await destination.read(file);
    expect(byLoadNumber(copy.loads)).toEqual(byLoadNumber(served));
    expect(copy.cursor).toBe(newest(served));
  }, SLOW_TEST_MS);

  it('a second sync after an update picks up the change and the new load without duplicating a row', async () => {
    const customer = await customerWithLoads(20);
    const file = join(scratch.path, `again-${customer.code}`);
    expect((await runCli(['sync', ...destination.args(file)], environmentOf(customer))).code).toBe(0);

    await kit.server.importLoads(customer.code, [loadInput(3, { miles: '999.25' }), loadInput(17, { status: 'Cancelled' }), loadInput(21)]);
    const again = await runCli(['sync', ...destination.args(file), '--page-size', '5'], environmentOf(customer));

    expect(again.code).toBe(0);
    const served = await customer.served();
    const copy = await destination.read(file);
    expect(copy.loads).toHaveLength(21);
    expect(byLoadNumber(copy.loads)).toEqual(byLoadNumber(served));
    expect(copy.loads.find((load) => load.loadNumber === loadInput(3).loadNumber)?.miles).toBe('999.25');
    expect(copy.cursor).toBe(newest(served));
  }, SLOW_TEST_MS);
});

describe('loadfeed sync: the key and the output', () => {
  it('takes the base URL and the key from LOADFEED_BASE_URL and LOADFEED_API_KEY and prints neither', async () => {
    const customer = await customerWithLoads(3);
    const file = join(scratch.path, `env-${customer.code}.ndjson`);

    const result = await runCli(['sync', '--out', file], environmentOf(customer));

    expect(result.code).toBe(0);
    expect(await readNdjson(file)).toHaveLength(3);
    expect(result.stdout + result.stderr).not.toContain(customer.key);
    expect(result.stdout + result.stderr).not.toContain(customer.key.slice(8));
  });

  it('off a terminal, progress is plain lines of rows so far of the total, each further on, without escape codes', async () => {
    const customer = await customerWithLoads(12);
    const file = join(scratch.path, `plain-${customer.code}.ndjson`);

    const result = await runCli(['sync', '--out', file, '--page-size', '5'], environmentOf(customer));

    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('\x1b');
    expect(result.stderr).not.toContain('\r');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const steps = lines.map((line) => {
      const [, rows, total, request] = /^(\d+)\/(\d+) rows, request (\d+), quota \d+\/\d+, ETA /.exec(line) ?? [];
      expect(rows, line).toBeDefined();
      return { rows: Number(rows), total: Number(total), request: Number(request) };
    });
    for (const [index, step] of steps.entries()) {
      expect(step.total).toBe(12);
      expect(step.rows).toBeLessThanOrEqual(step.total);
      if (index > 0) expect(step.rows).toBeGreaterThan(steps[index - 1]!.rows);
      if (index > 0) expect(step.request).toBeGreaterThan(steps[index - 1]!.request);
    }
    expect(steps.at(-1)!.rows).toBe(12);
  });

  it('a wrong key fails with one line that says the key was refused, and exit code 1', async () => {
    const file = join(scratch.path, 'refused.ndjson');
    const wrongKey = 'lf_live_thisKeyIsNotIssuedAnywhere0000000000000';

    const result = await runCli(['sync', '--out', file], { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: wrongKey });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^loadfeed: the API key was refused \(401\)/);
    expect(result.stderr.trimEnd().split('\n').filter((line) => line.startsWith('loadfeed:'))).toHaveLength(1);
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
  });
});
