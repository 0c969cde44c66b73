// Brings a database's schema up to date with the SQL files in server/migrations.
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface MigrateOptions {
  /** Where node-pg-migrate's progress lines go; silent by default. */
  log?: (message: string) => void;
}

/**
 * Applies every pending migration. Several instances may start at once: each waits for node-pg-migrate's
 * advisory lock instead of failing, and the later ones find nothing left to do. Returns the names applied.
 */
export async function migrate(databaseUrl: string, { log = () => {} }: MigrateOptions = {}): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    singleTransaction: true,
    advisoryLockMode: 'wait',
    logger: { debug: () => {}, info: log, warn: log, error: log },
  });
  return applied.map((migration) => migration.name);
}
