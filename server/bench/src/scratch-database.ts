// A database of a benchmark's own, made afresh on the server `serverUrl` points at and migrated up to a
// given migration (the release before, or this one), then dropped when the benchmark ends. This release is
// what `loadfeed-server migrate` makes: every migration, then the definitions of server/sql/; a release
// before is its migrations alone (its functions were defined there).
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { migrate } from '../../dist/db/migrate.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));

async function onServer(serverUrl: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** The URL of database `name`, made anew and migrated through migration `lastMigration` (its number, e.g. '0014'). */
export async function scratchDatabase(serverUrl: string, name: string, lastMigration: string): Promise<string> {
  // Names of the benchmarks' own, never input.
  await onServer(serverUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const migrations = (await readdir(MIGRATIONS)).filter((file) => file.endsWith('.sql'));
  const count = migrations.filter((file) => file.slice(0, 4) <= lastMigration).length;
  if (count === migrations.length) {
    await migrate(url.toString());
    return url.toString();
  }
  await runner({
    databaseUrl: url.toString(),
    dir: MIGRATIONS,
    direction: 'up',
    count,
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    singleTransaction: true,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  return url.toString();
}

export async function dropScratchDatabases(serverUrl: string, names: readonly string[]): Promise<void> {
  await onServer(serverUrl, async (admin) => {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
}
