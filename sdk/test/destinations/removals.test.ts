// Removals in each destination: a sync marks the loads the feed no longer serves (removedAt / removed_at,
// or the NDJSON file's <out>.removed.ndjson), a load that comes back is unmarked, --delete-removed
// deletes instead, verify counts marked loads as removed (not a fault) unless the feed serves them, and a copy made before the
// column existed gains it on its next run.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDuckdbDestination, openNdjsonDestination, openPostgresDestination, openSqliteDestination } from '../../src/destinations.js';
import { syncLoads, verifyCopy } from '../../src/index.js';
import { everyDestination, withoutPassword, type DestinationCase } from '../cli/copies.js';
import { useScratchFolder } from '../cli/run-cli.js';
import { loadInput, mockSetup } from '../helpers.js';
import { DAY_MS, freshCopy as freshCopyIn, LOADS, pickup, START, type Open } from './removal-fixture.js';

const scratch = useScratchFolder();
const customerDatabase = useTestDatabase();
const freshCopy = (destination: DestinationCase) => freshCopyIn(scratch.path, destination);

async function syncInto(open: Open, setup: ReturnType<typeof mockSetup>, deleteRemoved = false) {
  await setup.clock.advance(10 * 60_000);
  const destination = await open(true);
  try {
    return await syncLoads({ client: setup.client, destination, deleteRemoved });
  } finally {
    await destination.close();
  }
}

async function verify(open: Open, setup: ReturnType<typeof mockSetup>) {
  const copy = await open(false);
  try {
    return await verifyCopy({ client: setup.client, copy });
  } finally {
    await copy.close();
  }
}

describe.each(everyDestination(customerDatabase))('removals in $name', (destinationCase) => {
  it('marks what left the feed, verify calls it removed, a load that comes back is unmarked', async () => {
    const open = freshCopy(destinationCase);
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    setup.mock.remove(['L000003', 'L000077']);
    setup.mock.upsert([loadInput(50, { scheduledPickupDate: new Date(START - 400 * DAY_MS).toISOString() })]);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 3, removalsPending: 0 });
    const report = await verify(open, setup);
    expect(report).toMatchObject({ complete: true, removed: 3, extra: 0, missing: 0, served: 117 });
    expect(report.samples.removed).toEqual(['L000003', 'L000050', 'L000077']);

    setup.mock.upsert([loadInput(3, { scheduledPickupDate: pickup(3) })]);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 0 });
    expect(await verify(open, setup)).toMatchObject({ complete: true, removed: 2, served: 118 });
  });

  it('a load the feed serves that the copy holds marked removed is a fault: differing in removedAt', async () => {
    const open = freshCopy(destinationCase);
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    // A later write moves the copy's cursor past the marked loads' instant: they are owed, not the next sync's.
    await setup.clock.advance(60_000);
    setup.mock.upsert([loadInput(120, { scheduledPickupDate: pickup(120), miles: '1' })]);
    await syncInto(open, setup);
    const destination = await open(true);
    try {
      await destination.removals!.markRemoved(['L000005', 'L000040'], new Date(setup.clock.now()).toISOString(), { delete: false });
    } finally {
      await destination.close();
    }
    const report = await verify(open, setup);
    expect(report).toMatchObject({ complete: false, served: 120, equal: 118, differing: 2, removed: 0, extra: 0, missing: 0 });
    expect(report.samples.differing).toEqual([
      { loadNumber: 'L000005', fields: ['removedAt'] },
      { loadNumber: 'L000040', fields: ['removedAt'] },
    ]);
  });

  it('deletes what left the feed with deleteRemoved', async () => {
    const open = freshCopy(destinationCase);
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    setup.mock.remove(['L000010']);
    expect(await syncInto(open, setup, true)).toMatchObject({ removed: 1 });
    const copy = await open(false);
    try {
      expect(await copy.readRows(['L000010', 'L000011'])).toHaveLength(1);
    } finally {
      await copy.close();
    }
    expect(await verify(open, setup)).toMatchObject({ complete: true, removed: 0, served: 119 });
  });
});

// Such a copy has neither removedAt nor suspectedAt: it gains both.
describe('a copy made before removals', () => {
  it('SQLite: gains its removedAt column on the next run, every row kept and unmarked', async () => {
    const path = join(scratch.path, 'old.db');
    const open: Open = (write) => openSqliteDestination(path, { write });
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { exec(sql: string): void; prepare(sql: string): { all(): unknown[] }; close(): void };
    const db = new Database(path);
    db.exec('ALTER TABLE loads DROP COLUMN "removedAt"');
    db.exec('ALTER TABLE loads DROP COLUMN "suspectedAt"');
    db.close();
    setup.mock.remove(['L000020']);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 1 });
    const after = new Database(path);
    expect(after.prepare('SELECT count(*) AS n FROM loads WHERE "removedAt" IS NULL').all()).toEqual([{ n: 119 }]);
    after.close();
  });

  it('PostgreSQL: gains its removed_at column on the next run', async () => {
    const table = `t_${randomBytes(4).toString('hex')}`;
    const connectionString = withoutPassword(customerDatabase.url);
    const open: Open = (write) => openPostgresDestination({ connectionString, table, write });
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(`ALTER TABLE ${table} DROP COLUMN removed_at, DROP COLUMN suspected_at`);
      // verify only reads: an old copy still verifies, with nothing marked.
      expect(await verify(open, setup)).toMatchObject({ complete: true, removed: 0 });
      setup.mock.remove(['L000020']);
      expect(await syncInto(open, setup)).toMatchObject({ removed: 1 });
      expect((await client.query(`SELECT load_number FROM ${table} WHERE removed_at IS NOT NULL`)).rows).toEqual([{ load_number: 'L000020' }]);
    } finally {
      await client.end();
    }
  });

  it('DuckDB: gains its removed_at column on the next run', async () => {
    const path = join(scratch.path, 'old.duckdb');
    const open: Open = (write) => openDuckdbDestination(path, { write });
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    await connection.run('ALTER TABLE loads DROP COLUMN removed_at');
    await connection.run('ALTER TABLE loads DROP COLUMN suspected_at');
    connection.closeSync();
    instance.closeSync();
    setup.mock.remove(['L000020']);
    expect(await syncInto(open, setup)).toMatchObject({ removed: 1 });
    expect(await verify(open, setup)).toMatchObject({ complete: true, removed: 1, served: 119 });
  });

  it('NDJSON: every line keeps the Load shape; removals are listed beside the file', async () => {
    const path = join(scratch.path, 'shape.ndjson');
    const open: Open = (write) => openNdjsonDestination(path, `${path}.state.json`, { write });
    const setup = mockSetup({ mock: { loads: LOADS, rateLimitPerMinute: 100_000 } });
    await syncInto(open, setup);
    setup.mock.remove(['L000030']);
    await syncInto(open, setup);
    const lines = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(120);
    expect(lines.every((line) => !('removedAt' in line))).toBe(true);
    const removed = (await readFile(`${path}.removed.ndjson`, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(removed).toEqual([{ loadNumber: 'L000030', removedAt: expect.stringMatching(/Z$/) }]);
  });
});
