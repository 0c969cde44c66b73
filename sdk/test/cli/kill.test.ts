// `loadfeed sync --postgres` and `--duckdb` killed with SIGKILL at any moment: property-based over kill points (after
// which response, and how long after it: before, during or after that page's transaction). Whatever the
// moment, the stored cursor is never ahead of the stored rows, and the next run completes the copy,
// equal to the API on every field. CI runs a handful of kill points; LOADFEED_KILL_RUNS asks for more.
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import fc from 'fast-check';
import pg from 'pg';
import type { Load } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { loadInput } from '../helpers.js';
import { useTestServer } from '../integration/fixture.js';
import { join } from 'node:path';
import { DESTINATIONS, byLoadNumber, postgresDestination, withoutPassword } from './copies.js';
import { startRelay } from './relay.js';
import { SLOW_TEST_MS, runCli, startCli, useScratchFolder } from './run-cli.js';

const kit = useTestServer();
const customerDatabase = useTestDatabase();
const scratch = useScratchFolder();
const RUNS = Number(process.env.LOADFEED_KILL_RUNS ?? 3);
const LOADS = 48;
const PAGE_SIZE = 5;

/** Until the killed client's session has left the database (its advisory lock with it). */
async function sessionsGone(): Promise<void> {
  const client = new pg.Client({ connectionString: withoutPassword(customerDatabase.url) });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'loadfeed'`,
      );
      if (rows[0]!.count === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

const KILLABLE = [postgresDestination(() => withoutPassword(customerDatabase.url)), DESTINATIONS.find((destination) => destination.name === 'a DuckDB table')!];

describe.each(KILLABLE)('loadfeed sync into $name killed at any moment', (destination) => {
  it(
    'never stores a cursor ahead of its rows, and the next run completes a copy equal to the API on every field',
    async () => {
      const customer = await kit.customer();
      // Batches of 1 to 6: some rows share an updatedAt (bulk writes), some do not.
      for (let n = 1; n <= LOADS; ) {
        const size = Math.min(1 + (n % 6), LOADS - n + 1);
        await kit.server.importLoads(customer.code, Array.from({ length: size }, (_, index) => loadInput(n + index, { totalCost: `${n + index}.10` })));
        n += size;
      }
      const served = await customer.served();
      const requests = Math.ceil(LOADS / (PAGE_SIZE - 1)) + 1;
      let run = 0;

      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: requests }), fc.integer({ min: 0, max: 30 }), async (killAfter, delayMs) => {
          run += 1;
          const file = join(scratch.path, `killed_${customer.code}_${run}`);
          const args = ['sync', ...destination.args(file), '--page-size', String(PAGE_SIZE)];
          let sync: ReturnType<typeof startCli> | undefined;
          const relay = await startRelay(kit.server.baseUrl, {
            afterResponse: (n) => {
              if (n === killAfter) setTimeout(() => sync?.child.kill('SIGKILL'), delayMs);
            },
          });
          try {
            sync = startCli(args, { LOADFEED_BASE_URL: relay.url, LOADFEED_API_KEY: customer.key });
            await sync.done;
          } finally {
            await relay.close();
          }
          await sessionsGone();

          const killed = await destination.read(file).catch(() => ({ loads: [] as Load[], cursor: undefined }));
          if (killed.cursor !== undefined) {
            // The cursor's own row was committed with it, and every row before it is there and equal.
            expect(killed.loads.some((load) => load.updatedAt === killed.cursor)).toBe(true);
            const copied = new Map(killed.loads.map((load) => [load.loadNumber, load]));
            for (const load of served.filter((row) => row.updatedAt < killed.cursor!)) expect(copied.get(load.loadNumber)).toEqual(load);
          }

          const resumed = await runCli(args, { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key });
          expect(resumed.stderr).not.toMatch(/loadfeed: /);
          expect(resumed.code).toBe(0);
          const complete = await destination.read(file);
          expect(byLoadNumber(complete.loads)).toEqual(byLoadNumber(served));
          expect(complete.cursor).toBe(served.at(-1)!.updatedAt);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW_TEST_MS * 2,
  );
});
