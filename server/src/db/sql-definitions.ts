// The repeatable definitions of server/sql (sql/README.md): today's definition of every function and
// trigger, one file each, applied after the versioned migrations in the order sql/order.txt gives, each
// only when its text changed since it was last applied here. Flyway's repeatable migrations, which
// node-pg-migrate has not: sql_definitions keeps each file's checksum, and a file whose checksum differs
// (or that is new) is applied again. It keeps too what the database ran of each file once applied
// (definition-catalog.ts), so that a definition changed by hand since is seen, and put back when asked;
// the fixed definitions (types, indexes) are recorded as the migrations made them, and only reported.
// The caller holds the migrations' lock (migrate.ts).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { CUT_OFF_INDEXES } from './cut-off-indexes.js';
import { catalogRecord, driftOf, recordedRendering, renderingsOf, type DefinitionDrift } from './definition-catalog.js';

export const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

export interface SqlDefinition {
  /** The file's path under sql/, as order.txt names it. */
  name: string;
  text: string;
  /** SHA-256 of the text, hex. */
  checksum: string;
}

function definitionOf(dir: string, name: string): SqlDefinition {
  const text = readFileSync(join(dir, name), 'utf8');
  return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
}

/** The files order.txt lists, in its order. */
export function repeatableDefinitions(dir: string = SQL_DIR): SqlDefinition[] {
  return readFileSync(join(dir, 'order.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((name) => definitionOf(dir, name));
}

/** The fixed definitions: types and indexes, but the cut-off indexes, which src/db/feed-index.ts keeps. */
export function fixedDefinitions(dir: string = SQL_DIR): SqlDefinition[] {
  return ['types', 'indexes'].flatMap((folder) =>
    readdirSync(join(dir, folder))
      .filter((file) => file.endsWith('.sql') && !CUT_OFF_INDEXES.some((index) => index.file === file))
      .sort()
      .map((file) => definitionOf(dir, `${folder}/${file}`)),
  );
}

const TABLE_SQL = `
CREATE TABLE IF NOT EXISTS sql_definitions (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  catalog text
)`;

// Added where an earlier release made the table; asked first, as ALTER TABLE would lock the table (which
// /readyz reads) for the rest of the transaction even when the column is there.
const HAS_CATALOG_SQL = `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = 'sql_definitions'::regclass AND attname = 'catalog' AND NOT attisdropped) AS has`;
const ADD_CATALOG_SQL = 'ALTER TABLE sql_definitions ADD COLUMN IF NOT EXISTS catalog text';

const RECORD_SQL = `
INSERT INTO sql_definitions (name, checksum, catalog) VALUES ($1::text, $2::text, $3::text)
ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, catalog = excluded.catalog, applied_at = now()`;

export interface DefinitionsReport {
  /** Files applied because their text is new or changed (or what the database ran of them was not recorded). */
  applied: string[];
  /** Files applied again because the database ran something else than was applied (`putBack`). */
  putBack: DefinitionDrift[];
  /** Differences left as they are: a type's or an index's, and without `putBack` a function's or a trigger's. */
  left: DefinitionDrift[];
}

export interface ApplyOptions {
  /** Apply again a function or trigger whose object differs from what was applied (a change by hand). */
  putBack?: boolean;
  fixed?: SqlDefinition[];
}

/**
 * Applies, in one transaction, every definition whose checksum is not the one recorded (and, with
 * `putBack`, every one the database no longer runs as applied), in the given order, and records the new
 * checksums and what the database runs of each; records the fixed definitions as the migrations made
 * them and reports what differs of them since; forgets files no longer listed (a versioned migration drops
 * what they made). The definitions are created in the session's current schema, and those with
 * `SET search_path FROM CURRENT` keep that schema and pg_catalog.
 */
export async function applySqlDefinitions(
  client: pg.ClientBase,
  definitions: SqlDefinition[] = repeatableDefinitions(),
  { putBack = false, fixed = fixedDefinitions() }: ApplyOptions = {},
): Promise<DefinitionsReport> {
  await client.query('BEGIN');
  try {
    await client.query(TABLE_SQL);
    if (!(await client.query<{ has: boolean }>(HAS_CATALOG_SQL)).rows[0]!.has) await client.query(ADD_CATALOG_SQL);
    const { rows } = await client.query<{ name: string; checksum: string; catalog: string | null }>('SELECT name, checksum, catalog FROM sql_definitions');
    const recorded = new Map(rows.map((row) => [row.name, row]));
    const running = await renderingsOf(client, [...definitions, ...fixed].map((definition) => definition.name));
    const report: DefinitionsReport = { applied: [], putBack: [], left: [] };
    const due: SqlDefinition[] = [];
    for (const definition of definitions) {
      const row = recorded.get(definition.name);
      const was = row?.checksum === definition.checksum ? recordedRendering(row.catalog, definition.checksum) : undefined;
      const drift = was === undefined ? undefined : driftOf(definition.name, was, running.get(definition.name));
      if (was === undefined) report.applied.push(definition.name);
      else if (drift === undefined) continue;
      else if (putBack) report.putBack.push(drift);
      else {
        report.left.push(drift);
        continue;
      }
      due.push(definition);
    }
    if (due.length > 0) {
      await client.query(`SELECT set_config('search_path', format('%I, pg_catalog', current_schema()), true)`);
      await client.query(readFileSync(join(SQL_DIR, 'lock_without_queueing.sql'), 'utf8'));
      for (const definition of due) await client.query(definition.text);
      // Read once all are applied: a later file may replace what an earlier one made.
      const made = await renderingsOf(client, due.map((definition) => definition.name));
      for (const definition of due) await client.query(RECORD_SQL, [definition.name, definition.checksum, catalogRecord(definition.checksum, made.get(definition.name) ?? null)]);
    }
    for (const definition of fixed) {
      const row = recorded.get(definition.name);
      const was = row?.checksum === definition.checksum ? recordedRendering(row.catalog, definition.checksum) : undefined;
      const now = running.get(definition.name) ?? null;
      if (was === undefined) await client.query(RECORD_SQL, [definition.name, definition.checksum, catalogRecord(definition.checksum, now)]);
      else {
        const drift = driftOf(definition.name, was, now);
        if (drift) report.left.push(drift);
      }
    }
    const kept = [...definitions, ...fixed].map((definition) => definition.name);
    await client.query('DELETE FROM sql_definitions WHERE name <> ALL ($1::text[])', [kept]);
    await client.query('COMMIT');
    return report;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
