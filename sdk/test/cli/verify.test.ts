// `loadfeed verify` against the real reference server, for each copy `loadfeed sync` writes: an exact
// copy exits 0; rows deleted, altered or added behind the sync's back exit 4 with the right counts and
// loadNumbers, rows aged out of the window and rows changed after the cursor are reported, not failures.
import { join } from 'node:path';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import type { Load } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src/index.js';
import { loadInput } from '../helpers.js';
import { useTestServer } from '../integration/fixture.js';
import { DESTINATIONS, everyDestination } from './copies.js';
import { SLOW_TEST_MS, runCli, useScratchFolder } from './run-cli.js';

const kit = useTestServer();
const scratch = useScratchFolder();
const customerDatabase = useTestDatabase();

const YEAR_MS = 365 * 86_400_000;

/** A row no sync wrote: a load the feed does not serve, picked up inside the window or two years ago. */
function stranger(loadNumber: string, pickup: Date, like: Load): Load {
  return { ...like, loadNumber, scheduledPickupDate: pickup.toISOString() };
}

describe.each(everyDestination(customerDatabase))('loadfeed verify of $name', (destination) => {
  it(
    'exits 0 for an exact copy, then 4 with the right counts once rows are deleted, altered and added',
    async () => {
      const customer = await kit.customer();
      for (let from = 1; from <= 24; from += 6) {
        await kit.server.importLoads(customer.code, Array.from({ length: 6 }, (_, index) => loadInput(from + index, { totalCost: `${from + index}.10` })));
      }
      const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key };
      const file = join(scratch.path, `verify-${customer.code}`);
      expect((await runCli(['sync', ...destination.args(file)], env)).code).toBe(0);

      const exact = await runCli(['verify', ...destination.args(file), '--json'], env);
      expect(exact.stderr).not.toMatch(/loadfeed: /);
      expect(exact.code).toBe(0);
      const clean = JSON.parse(exact.stdout) as VerifyReport;
      expect(clean).toMatchObject({ complete: true, served: 24, equal: 24, missing: 0, differing: 0, newer: 0, agedOut: 0, extra: 0 });

      const served = await customer.served();
      const [first, second, third, fourth, fifth, sixth] = served.map((load) => load.loadNumber);
      await destination.tamper(file, {
        remove: [first!, second!],
        alter: [
          { loadNumber: third!, field: 'status', value: 'Cancelled' },
          { loadNumber: fourth!, field: 'totalCost', value: '99.99' },
          { loadNumber: fifth!, field: 'scheduledPickupDate', value: '2020-01-01T00:00:00.000Z' },
        ],
        add: [stranger('X-IN-WINDOW', new Date(), served[0]!), stranger('X-AGED-OUT', new Date(Date.now() - 2 * YEAR_MS), served[0]!)],
      });
      // A change on the server after the copy's cursor: the next sync's to bring, not a fault.
      await kit.server.importLoads(customer.code, [loadInput(Number(sixth!.slice(1)), { miles: '777' })]);

      const tampered = await runCli(['verify', ...destination.args(file), '--json'], env);
      expect(tampered.code).toBe(4);
      const report = JSON.parse(tampered.stdout) as VerifyReport;
      expect(report).toMatchObject({ complete: false, served: 24, equal: 18, missing: 2, differing: 3, newer: 1, agedOut: 1, extra: 1 });
      expect(report.samples.missing).toEqual([first, second].sort());
      expect(report.samples.differing).toEqual(
        [
          { loadNumber: third, fields: ['status'] },
          { loadNumber: fourth, fields: ['totalCost'] },
          { loadNumber: fifth, fields: ['scheduledPickupDate'] },
        ].sort((a, b) => (a.loadNumber! < b.loadNumber! ? -1 : 1)),
      );
      expect(report.samples).toMatchObject({ newer: [sixth], agedOut: ['X-AGED-OUT'], extra: ['X-IN-WINDOW'] });
      expect(tampered.stderr).toMatch(/^loadfeed: the copy is not complete: 2 missing, 3 different, 1 unexplained$/m);
    },
    SLOW_TEST_MS,
  );
});

describe('loadfeed verify, as a person reads it', () => {
  it('prints the counts with the first loadNumbers of each kind, and says whether the copy is complete', async () => {
    const customer = await kit.customer();
    // Two writes: the rows removed below sit before the cursor's instant (the second write's), so they are owed.
    await kit.server.importLoads(customer.code, Array.from({ length: 12 }, (_, index) => loadInput(index + 1)));
    await kit.server.importLoads(customer.code, Array.from({ length: 3 }, (_, index) => loadInput(index + 13)));
    const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key };
    const destination = DESTINATIONS[0]!;
    const file = join(scratch.path, `person-${customer.code}`);
    expect((await runCli(['sync', ...destination.args(file)], env)).code).toBe(0);
    const served = (await customer.served()).map((load) => load.loadNumber).sort();
    await destination.tamper(file, { remove: served.slice(0, 12), alter: [], add: [] });

    const result = await runCli(['verify', ...destination.args(file)], env);

    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/^compared 15 served rows with the copy as of its cursor \S+ in 1 request\n/);
    expect(result.stdout).toContain(`  missing from the copy:                12: ${served.slice(0, 10).join(', ')}, …\n`);
    expect(result.stdout).toContain('  equal:                                3\n');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('the copy is NOT complete');
  });
});
