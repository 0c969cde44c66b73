// Every destination as the tests open, read and tamper with it (DestinationCase): NDJSON, SQLite, DuckDB,
// PostgreSQL. The one test-side file that a new destination adds to.
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { Load } from '@loadfeed/spec';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { openDuckdbDestination, openNdjsonDestination, openPostgresDestination, openSqliteDestination, type CopyDestination } from '../../src/destinations.js';

/** The part of better-sqlite3 these tests use (the package ships no types of its own). */
interface ReadOnlyDatabase {
  prepare(sql: string): { all(): unknown[]; get(): unknown };
  close(): void;
}
type DatabaseConstructor = new (path: string, options: { readonly: boolean }) => ReadOnlyDatabase;

const Database = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;

interface WritableDatabaseHandle {
  prepare(sql: string): { run(...parameters: unknown[]): unknown };
  close(): void;
}
const WritableDatabase = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => WritableDatabaseHandle;

export const byLoadNumber = <T extends { loadNumber: string }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0));

export async function readNdjson(path: string): Promise<Load[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Load);
}

export async function readCursorFile(path: string): Promise<string> {
  return (JSON.parse(await readFile(path, 'utf8')) as { cursor: string }).cursor;
}

export function readSqlite(path: string): { loads: Load[]; cursor: string | undefined } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      loads: (db.prepare('SELECT * FROM loads ORDER BY "loadNumber"').all() as (Load & { removedAt?: unknown; suspectedAt?: unknown })[]).map(({ removedAt: _marker, suspectedAt: _suspect, ...load }) => load),
      cursor: (db.prepare('SELECT cursor FROM loadfeed_sync WHERE id = 1').get() as { cursor: string } | undefined)?.cursor,
    };
  } finally {
    db.close();
  }
}

/**
 * Each destination as the tests meet it, named by a base path (the file name without its extension, or the
 * table name for a database server): the flags that name it, how code opens it, how to read it back and to
 * tamper with it. The generic suites (sync, verify, removals, suspects, locks) run over this list, so that a
 * destination added to DESTINATION_KINDS needs its entry here and nothing more from them.
 */
export interface DestinationCase {
  name: string;
  args(file: string): string[];
  /** The copy `args` names, opened from code: to write (sync) or only to read (verify). */
  open(file: string, write: boolean): Promise<CopyDestination>;
  read(file: string): Promise<{ loads: Load[]; cursor: string | undefined }>;
  tamper(file: string, tampering: Tampering): Promise<void>;
  /** A copy in one file: the line a second `loadfeed sync` gets while a first writes it, and the lock file, if it keeps one, that a killed run leaves. */
  oneWriter?: { refused: RegExp; lockFile?(file: string): string };
}

const LOCK_FILE_HELD = /^loadfeed: another loadfeed sync is writing \S+ now \(process \d+, \S+\.lock\); try again when it ends\n$/;

/** The destinations a base path in the scratch folder names: all but PostgreSQL (postgresDestination). */
export const DESTINATIONS: DestinationCase[] = [
  {
    name: 'an NDJSON file',
    args: (file) => ['--out', `${file}.ndjson`],
    open: (file, write) => openNdjsonDestination(`${file}.ndjson`, `${file}.ndjson.state.json`, { write }),
    read: async (file) => ({ loads: await readNdjson(`${file}.ndjson`), cursor: await readCursorFile(`${file}.ndjson.state.json`) }),
    tamper: (file, tampering) => tamperNdjson(`${file}.ndjson`, tampering),
    oneWriter: { refused: LOCK_FILE_HELD, lockFile: (file) => `${file}.ndjson.lock` },
  },
  {
    name: 'a SQLite table',
    args: (file) => ['--sqlite', `${file}.db`],
    open: (file, write) => openSqliteDestination(`${file}.db`, { write }),
    read: async (file) => readSqlite(`${file}.db`),
    tamper: async (file, tampering) => tamperSqlite(`${file}.db`, tampering),
    oneWriter: { refused: LOCK_FILE_HELD, lockFile: (file) => `${file}.db.lock` },
  },
  {
    name: 'a DuckDB table',
    args: (file) => ['--duckdb', `${file}.duckdb`],
    open: (file, write) => openDuckdbDestination(`${file}.duckdb`, { write }),
    read: (file) => readDuckdb(`${file}.duckdb`),
    tamper: (file, tampering) => tamperDuckdb(`${file}.duckdb`, tampering),
    oneWriter: { refused: /^loadfeed: another process \(\d+\) has the DuckDB file open \(a loadfeed sync, or a DuckDB session\): try again when it ends\n$/ },
  },
];

/** Every destination, PostgreSQL writing into the customer's own database (useTestDatabase's, not the server's). */
export const everyDestination = (customerDatabase: { readonly url: string }): DestinationCase[] => [
  ...DESTINATIONS,
  postgresDestination(() => withoutPassword(customerDatabase.url)),
];

const camelCase = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** A PostgreSQL copy read back with plain SQL: timestamptz as SPEC's date-time, numeric as its text. */
export async function readPostgres(url: string, table: string): Promise<{ loads: Load[]; cursor: string | undefined }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = (await client.query<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY load_number`)).rows;
    const loads = rows.map(
      (row) =>
        Object.fromEntries(
          Object.entries(row)
            .filter(([column]) => column !== 'removed_at' && column !== 'suspected_at')
            .map(([column, value]) => [camelCase(column), value instanceof Date ? value.toISOString() : value]),
        ) as Load,
    );
    // The cursor row is keyed by the table's resolved schema.table.
    const cursor = (
      await client.query<{ cursor: Date }>(
        `SELECT cursor FROM loadfeed_cursor WHERE feed = (SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1::text))`,
        [table],
      )
    ).rows[0]?.cursor.toISOString();
    return { loads, cursor };
  } finally {
    await client.end();
  }
}

/** A table name for a test's copy, from the base path the other destinations use as a file name. */
export const tableOf = (file: string) => `copy_${basename(file).toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;

/** `--postgres` into the customer's own database (a database apart from the server's). */
export function postgresDestination(url: () => string): DestinationCase {
  return {
    name: 'a PostgreSQL table',
    args: (file) => ['--postgres', url(), '--table', tableOf(file)],
    open: (file, write) => openPostgresDestination({ connectionString: url(), table: tableOf(file), write }),
    read: (file) => readPostgres(url(), tableOf(file)),
    tamper: (file, tampering) => tamperPostgres(url(), tableOf(file), tampering),
  };
}

/** What a test does to a copy behind the sync's back: rows deleted, one field of rows altered, rows added. */
export interface Tampering {
  remove: string[];
  alter: { loadNumber: string; field: keyof Load; value: string }[];
  add: Load[];
}

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

export async function tamperNdjson(path: string, { remove, alter, add }: Tampering): Promise<void> {
  const loads = (await readNdjson(path)).filter((load) => !remove.includes(load.loadNumber));
  for (const { loadNumber, field, value } of alter) Object.assign(loads.find((load) => load.loadNumber === loadNumber)!, { [field]: value });
  await writeFile(path, [...loads, ...add].map((load) => `${JSON.stringify(load)}\n`).join(''));
}

export function tamperSqlite(path: string, { remove, alter, add }: Tampering): void {
  const db = new WritableDatabase(path);
  try {
    for (const loadNumber of remove) db.prepare('DELETE FROM loads WHERE "loadNumber" = ?').run(loadNumber);
    for (const { loadNumber, field, value } of alter) db.prepare(`UPDATE loads SET "${field}" = ? WHERE "loadNumber" = ?`).run(value, loadNumber);
    for (const load of add) {
      const fields = Object.keys(load);
      db.prepare(`INSERT INTO loads (${fields.map((field) => `"${field}"`).join(', ')}) VALUES (${fields.map(() => '?').join(', ')})`).run(...Object.values(load));
    }
  } finally {
    db.close();
  }
}

export async function tamperPostgres(url: string, table: string, { remove, alter, add }: Tampering): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DELETE FROM ${table} WHERE load_number = ANY ($1::text[])`, [remove]);
    for (const { loadNumber, field, value } of alter) await client.query(`UPDATE ${table} SET ${snakeCase(field)} = $1 WHERE load_number = $2::text`, [value, loadNumber]);
    for (const load of add) {
      const fields = Object.keys(load);
      await client.query(`INSERT INTO ${table} (${fields.map(snakeCase).join(', ')}) VALUES (${fields.map((_, index) => `$${index + 1}`).join(', ')})`, Object.values(load));
    }
  } finally {
    await client.end();
  }
}

/**
 * A database URL as a person gives it to `--postgres`: without its password, which goes in PGPASSWORD (the
 * CLI warns about a password in the URL, which the process list shows). Sets PGPASSWORD for this test
 * process and the CLI processes it starts, which inherit its environment.
 */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  process.env.PGPASSWORD = decodeURIComponent(parsed.password);
  parsed.password = '';
  return parsed.toString();
}

/** Opens the file (read-only unless `write`), runs `body`, and closes it, so that the CLI can open it next. */
export async function withDuckdb<T>(path: string, write: boolean, body: (run: (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(path, write ? {} : { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return await body(async (sql, values = []) => (await connection.runAndReadAll(sql, values as never)).getRowObjectsJson() as Record<string, unknown>[]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A DuckDB copy read back: TIMESTAMPTZ as SPEC's date-time, the rest as stored. */
export async function readDuckdb(path: string): Promise<{ loads: Load[]; cursor: string | undefined }> {
  return withDuckdb(path, false, async (run) => {
    const columns = await run(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = 'loads' ORDER BY ordinal_position`);
    const select = columns
      .filter(({ name }) => name !== 'removed_at' && name !== 'suspected_at')
      .map(({ name, type }) => (type === 'TIMESTAMP WITH TIME ZONE' ? `strftime(${name} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS ${name}` : String(name)))
      .join(', ');
    const rows = await run(`SELECT ${select} FROM loads ORDER BY load_number`);
    const loads = rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [camelCase(column), value])) as Load);
    const [cursor] = await run(`SELECT strftime(cursor AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS cursor FROM loadfeed_cursor`);
    return { loads, cursor: cursor?.cursor as string | undefined };
  });
}

export async function tamperDuckdb(path: string, { remove, alter, add }: Tampering): Promise<void> {
  await withDuckdb(path, true, async (run) => {
    for (const loadNumber of remove) await run('DELETE FROM loads WHERE load_number = $1', [loadNumber]);
    for (const { loadNumber, field, value } of alter) await run(`UPDATE loads SET ${snakeCase(field)} = $1 WHERE load_number = $2`, [value, loadNumber]);
    for (const load of add) {
      // A null cannot be bound without a type: it is written as NULL.
      const values: unknown[] = [];
      const placeholders = Object.values(load).map((value) => (value === null ? 'NULL' : `$${values.push(value)}`));
      await run(`INSERT INTO loads (${Object.keys(load).map(snakeCase).join(', ')}) VALUES (${placeholders.join(', ')})`, values);
    }
  });
}
