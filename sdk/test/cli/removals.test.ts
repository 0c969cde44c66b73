// `loadfeed sync` and `loadfeed verify` with loads that left the feed, against the real server: the next
// sync marks them removed and says so in --json, --delete-removed deletes them, verify counts them as
// removed and exits 0.
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { SyncReport } from '../../src/cli/sync.js';
import type { VerifyReport } from '../../src/verify.js';
import { loadInputs } from '../helpers.js';
import { useTestServer } from '../integration/fixture.js';
import { DESTINATIONS, readSqlite } from './copies.js';
import { runCli, useScratchFolder } from './run-cli.js';

const kit = useTestServer();
const scratch = useScratchFolder();
const sqlite = DESTINATIONS.find((destination) => destination.name === 'a SQLite table')!;

async function deleteFromServer(code: string, loadNumbers: string[]): Promise<void> {
  const db = new pg.Client({ connectionString: kit.databaseUrl });
  await db.connect();
  try {
    await db.query('DELETE FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = ANY ($2::text[])', [code, loadNumbers]);
  } finally {
    await db.end();
  }
}

describe('loadfeed sync and verify with removals', () => {
  it('the next sync marks deleted loads removed (removed in --json), verify reports them as removed and exits 0', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(8));
    const file = join(scratch.path, `removed-${customer.code}`);
    const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key };
    expect((await runCli(['sync', ...sqlite.args(file)], env)).code).toBe(0);
    await deleteFromServer(customer.code, ['L000002', 'L000005']);

    const sync = await runCli(['sync', ...sqlite.args(file), '--json'], env);
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout) as SyncReport).toMatchObject({ stopped: 'end-of-feed', removed: 2, removalsPending: 0 });

    const verify = await runCli(['verify', ...sqlite.args(file), '--json'], env);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout) as VerifyReport).toMatchObject({ complete: true, removed: 2, extra: 0, served: 6 });
    const text = await runCli(['verify', ...sqlite.args(file)], env);
    expect(text.stdout).toMatch(/marked removed by sync: +2: L000002, L000005\n/);
  });

  it('--delete-removed deletes them from the copy', async () => {
    const customer = await kit.customer();
    await kit.server.importLoads(customer.code, loadInputs(5));
    const file = join(scratch.path, `deleted-${customer.code}`);
    const env = { LOADFEED_BASE_URL: kit.server.baseUrl, LOADFEED_API_KEY: customer.key };
    expect((await runCli(['sync', ...sqlite.args(file)], env)).code).toBe(0);
    await deleteFromServer(customer.code, ['L000003']);

    const sync = await runCli(['sync', ...sqlite.args(file), '--delete-removed'], env);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain('1 load deleted');
    expect((await sqlite.read(file)).loads.map((load) => load.loadNumber)).toEqual(['L000001', 'L000002', 'L000004', 'L000005']);
    expect(readSqlite(sqlite.args(file)[1]!).loads).toHaveLength(4);
  });
});
