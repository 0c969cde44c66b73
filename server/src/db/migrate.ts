// Brings a database's schema up to date: the versioned migrations in server/migrations (tables, data
// moves and their history), then the repeatable definitions in server/sql (sql-definitions.ts), under one
// lock.
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { releaseMigrationLock, takeMigrationLock, type LockWaitOptions } from './migration-lock.js';
import { applySqlDefinitions, repeatableDefinitions } from './sql-definitions.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface MigrateOptions extends LockWaitOptions {
  /** Where node-pg-migrate's progress lines go; silent by default. */
  log?: (message: string) => void;
}

/**
 * Applies every pending migration, then every changed definition. Several instances may start at once:
 * each waits for node-pg-migrate's advisory lock (taken here, on the session both steps run in, so that
 * no instance reads the definitions' checksums while another applies them), and the later ones find
 * nothing left to do. Returns the names of the versioned migrations applied.
 */
export async function migrate(databaseUrl: string, { log = () => {}, ...lockWait }: MigrateOptions = {}): Promise<string[]> {
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
      for (const name of await applySqlDefinitions(client, definitions)) log(`> definition ${name}`);
      return applied.map((migration) => migration.name);
    } finally {
      await releaseMigrationLock(client);
    }
  } finally {
    await client.end();
  }
}
