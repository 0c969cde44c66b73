// The repeatable definitions of server/sql (sql/README.md): today's definition of every function and
// trigger, one file each, applied after the versioned migrations in the order sql/order.txt gives, each
// only when its text changed since it was last applied here. Flyway's repeatable migrations, which
// node-pg-migrate has not: sql_definitions keeps each file's checksum, and a file whose checksum differs
// (or that is new) is applied again. The caller holds the migrations' lock (migrate.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

export const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

export interface SqlDefinition {
  /** The file's path under sql/, as order.txt names it. */
  name: string;
  text: string;
  /** SHA-256 of the text, hex. */
  checksum: string;
}

/** The files order.txt lists, in its order. */
export function repeatableDefinitions(dir: string = SQL_DIR): SqlDefinition[] {
  return readFileSync(join(dir, 'order.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
    });
}

const TABLE_SQL = `
CREATE TABLE IF NOT EXISTS sql_definitions (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

const RECORD_SQL = `
INSERT INTO sql_definitions (name, checksum) VALUES ($1::text, $2::text)
ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now()`;

/**
 * Applies, in one transaction, every definition whose checksum is not the one recorded, in the given
 * order, and records the new checksums; forgets files no longer listed (a versioned migration drops what
 * they made). The definitions are created in the session's current schema, and those with
 * `SET search_path FROM CURRENT` keep that schema and pg_catalog. Returns the names applied.
 */
export async function applySqlDefinitions(client: pg.ClientBase, definitions: SqlDefinition[] = repeatableDefinitions()): Promise<string[]> {
  await client.query('BEGIN');
  try {
    await client.query(TABLE_SQL);
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM sql_definitions');
    const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
    const changed = definitions.filter((definition) => recorded.get(definition.name) !== definition.checksum);
    if (changed.length > 0) {
      await client.query(`SELECT set_config('search_path', format('%I, pg_catalog', current_schema()), true)`);
      await client.query(readFileSync(join(SQL_DIR, 'lock_without_queueing.sql'), 'utf8'));
      for (const definition of changed) {
        await client.query(definition.text);
        await client.query(RECORD_SQL, [definition.name, definition.checksum]);
      }
    }
    await client.query('DELETE FROM sql_definitions WHERE name <> ALL ($1::text[])', [definitions.map((definition) => definition.name)]);
    await client.query('COMMIT');
    return changed.map((definition) => definition.name);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
