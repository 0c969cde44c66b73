// Brings a database's schema up to date: the versioned migrations in server/migrations (tables, data
// moves and their history), then the repeatable definitions in server/sql (sql-definitions.ts), under one
// lock. A database a newer release has migrated (it ran versioned migrations this release does not have)
// keeps the newer definitions: this release's would take back what the newer one needs, and during a
// rolling upgrade both releases serve from that schema. That is said, not refused.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { definitionDrift } from './definitions-check.js';
import { releaseMigrationLock, takeMigrationLock, type LockWaitOptions } from './migration-lock.js';
import { applySqlDefinitions, repeatableDefinitions, type DefinitionsReport } from './sql-definitions.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface MigrateOptions extends LockWaitOptions {
  /** Where node-pg-migrate's progress lines go; silent by default. */
  log?: (message: string) => void;
  /** Apply again each function and trigger the database no longer runs as applied (`loadfeed-server migrate`). */
  putBack?: boolean;
}

export interface MigrationReport {
  /** The versioned migrations applied. */
  migrations: string[];
  definitions: DefinitionsReport;
  /** Versioned migrations the database ran that this release has not: a newer release migrated it. */
  newer: string[];
}

/**
 * Applies every pending migration, then every changed definition. Several instances may start at once:
 * each waits for node-pg-migrate's advisory lock (taken here, on the session both steps run in, so that
 * no instance reads the definitions' checksums while another applies them), and the later ones find
 * nothing left to do.
 */
export async function migrateSchema(databaseUrl: string, { log = () => {}, putBack = false, ...lockWait }: MigrateOptions = {}): Promise<MigrationReport> {
  const definitions = repeatableDefinitions();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await takeMigrationLock(client, lockWait);
    try {
      const applied = await runner({
        dbClient: client,
        noLock: true,
        dir: MIGRATIONS_DIR,
        direction: 'up',
        migrationsTable: 'pgmigrations',
        checkOrder: true,
        singleTransaction: true,
        logger: { debug: () => {}, info: log, warn: log, error: log },
      });
      const newer = await migrationsUnknownHere(client);
      if (newer.length > 0) {
        return { migrations: [], newer, definitions: { applied: [], putBack: [], left: await definitionDrift(client) } };
      }
      const report = await applySqlDefinitions(client, definitions, { putBack });
      for (const name of report.applied) log(`> definition ${name}`);
      for (const { name } of report.putBack) log(`> definition ${name} (put back)`);
      return { migrations: applied.map((migration) => migration.name), newer, definitions: report };
    } finally {
      await releaseMigrationLock(client);
    }
  } finally {
    await client.end();
  }
}

/** migrateSchema, for those that need only the names of the versioned migrations it applied. */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<string[]> {
  return (await migrateSchema(databaseUrl, options)).migrations;
}

async function migrationsUnknownHere(client: pg.ClientBase): Promise<string[]> {
  const known = new Set(readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql')).map((file) => file.slice(0, -'.sql'.length)));
  const { rows } = await client.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY run_on, id');
  return rows.map((row) => row.name).filter((name) => !known.has(name));
}
