// `--postgres <url>`: the customer's own PostgreSQL. A table keyed by load_number with typed columns
// (load-columns.ts), created on the first run, and the cursor in `loadfeed_cursor` beside it, one row per
// synced table. Each page's rows and the cursor after them are committed in ONE transaction, so a
// process killed at any moment leaves the page and its cursor, or neither. A sync holds a session
// advisory lock on its table, so that two runs (an overlapping cron job) never write one copy at once.
// pg is an optional dependency, loaded only here, so that library users who do not need it never install it.
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { LOAD_COLUMNS, type LoadColumn } from './load-columns.js';

/** The part of pg's API this file uses. */
interface PgClient {
  connect(): Promise<unknown>;
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
type PgClientConstructor = new (config: { connectionString: string; application_name: string }) => PgClient;

const PG_PACKAGE = 'pg';
const PG_VERSION = '8.23.1';

export interface PostgresDestinationOptions {
  /** `postgres://user@host:5432/database`; a password may come from PGPASSWORD or ~/.pgpass instead. */
  connectionString: string;
  /** The table of loads, optionally schema-qualified (default `loads`); its cursor row in `loadfeed_cursor` is keyed by this name. */
  table?: string;
  /** Create the tables when missing and lock the copy for writing (default true); `loadfeed verify` only reads. */
  write?: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const quote = (name: string) => `"${name}"`;

/** `loads` or `warehouse.loads`, checked and quoted; the cursor table lives in the same schema. */
function tableNames(table: string): { loads: string; cursor: string } {
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new CliError(`--table ${JSON.stringify(table)} is not a table name (letters, digits and _, optionally schema.table)`);
  }
  const schema = parts.length === 2 ? `${quote(parts[0]!)}.` : '';
  return { loads: `${schema}${quote(parts.at(-1)!)}`, cursor: `${schema}loadfeed_cursor` };
}

const columnType = (column: LoadColumn) => `${column.type}${column.notNull ? ' NOT NULL' : ''}`;
const others = LOAD_COLUMNS.filter((column) => column.field !== 'loadNumber');

/** A column read back in the API's shape: date-times as SPEC's UTC milliseconds with Z, decimals as written. */
function asApiValue(column: LoadColumn): string {
  if (column.type === 'timestamptz') return `to_char(${column.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${quote(column.field)}`;
  if (column.type === 'numeric') return `${column.column}::text AS ${quote(column.field)}`;
  return `${column.column} AS ${quote(column.field)}`;
}

function statements(table: string) {
  const names = tableNames(table);
  return {
    names,
    schema: `
CREATE TABLE IF NOT EXISTS ${names.loads} (
  load_number text PRIMARY KEY,
  ${others.map((column) => `${column.column} ${columnType(column)}`).join(',\n  ')}
);
CREATE TABLE IF NOT EXISTS ${names.cursor} (
  feed text PRIMARY KEY,
  cursor timestamptz NOT NULL
)`,
    // A whole page in one statement: the rows travel as one JSON array, and jsonb_to_recordset turns the
    // API's field names into typed columns. The overlap reads rows again: an older copy never replaces a newer one.
    upsertPage: `
INSERT INTO ${names.loads} AS copy (${LOAD_COLUMNS.map((column) => column.column).join(', ')})
SELECT ${LOAD_COLUMNS.map((column) => quote(column.field)).join(', ')}
  FROM jsonb_to_recordset($1::jsonb) AS page(${LOAD_COLUMNS.map((column) => `${quote(column.field)} ${column.type}`).join(', ')})
ON CONFLICT (load_number) DO UPDATE SET
  ${others.map((column) => `${column.column} = excluded.${column.column}`).join(',\n  ')}
WHERE excluded.updated_at >= copy.updated_at`,
    saveCursor: `
INSERT INTO ${names.cursor} AS saved (feed, cursor) VALUES ($1::text, $2::timestamptz)
ON CONFLICT (feed) DO UPDATE SET cursor = greatest(saved.cursor, excluded.cursor)`,
    loadCursor: `SELECT to_char(cursor AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS cursor FROM ${names.cursor} WHERE feed = $1::text`,
    readRows: `SELECT ${LOAD_COLUMNS.map(asApiValue).join(', ')} FROM ${names.loads} WHERE load_number = ANY ($1::text[])`,
    // From '' (before every loadNumber): one range of the key's index a batch.
    loadNumbers: `SELECT load_number FROM ${names.loads} WHERE load_number > $1::text ORDER BY load_number LIMIT $2::int`,
    exists: `SELECT to_regclass($1::text) IS NOT NULL AND to_regclass($2::text) IS NOT NULL AS present`,
    // One lock per copy, whatever the session's search_path: the key is the table's name as given.
    lock: `SELECT pg_try_advisory_lock(hashtextextended('loadfeed sync ' || $1::text, 0)) AS locked`,
  };
}

async function loadPg(): Promise<PgClientConstructor> {
  // A specifier in a variable keeps TypeScript from requiring the optional package's types.
  const specifier: string = PG_PACKAGE;
  try {
    const module = (await import(specifier)) as { default: { Client: PgClientConstructor } };
    return module.default.Client;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new CliError(`--postgres needs the optional package ${PG_PACKAGE}: run \`npm install ${PG_PACKAGE}@${PG_VERSION}\``);
    }
    throw error;
  }
}

const BATCH = 1000;

export async function openPostgresDestination(options: PostgresDestinationOptions): Promise<CopyDestination> {
  const table = options.table ?? 'loads';
  const sql = statements(table);
  const Client = await loadPg();
  const db = new Client({ connectionString: options.connectionString, application_name: 'loadfeed' });
  // A connection lost between queries surfaces on the next query; without a listener it would crash the process.
  db.on('error', () => {});
  await db.connect();
  try {
    if (options.write ?? true) {
      const [lock] = (await db.query<{ locked: boolean }>(sql.lock, [table])).rows;
      if (!lock?.locked) throw new CliError(`another loadfeed sync is writing ${table} in this database now; try again when it ends`);
      await db.query(sql.schema);
    } else {
      const [found] = (await db.query<{ present: boolean }>(sql.exists, [sql.names.loads, sql.names.cursor])).rows;
      if (!found?.present) throw new CliError(`the database has no copy in ${table} (and loadfeed_cursor): run \`loadfeed sync --postgres\` first`);
    }
  } catch (error) {
    await db.end().catch(() => {});
    throw error;
  }

  return {
    async loadCursor() {
      const [row] = (await db.query<{ cursor: string }>(sql.loadCursor, [table])).rows;
      return row?.cursor;
    },
    async write(rows: LoadRow[], cursor: string | undefined) {
      await db.query('BEGIN');
      try {
        if (rows.length > 0) await db.query(sql.upsertPage, [JSON.stringify(rows)]);
        if (cursor !== undefined) await db.query(sql.saveCursor, [table, cursor]);
        await db.query('COMMIT');
      } catch (error) {
        await db.query('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    async readRows(loadNumbers) {
      return (await db.query<LoadRow>(sql.readRows, [loadNumbers])).rows;
    },
    async *loadNumbers() {
      let after = '';
      for (;;) {
        const batch: string[] = (await db.query<{ load_number: string }>(sql.loadNumbers, [after, BATCH])).rows.map((row) => row.load_number);
        if (batch.length > 0) yield batch;
        if (batch.length < BATCH) return;
        after = batch.at(-1)!;
      }
    },
    async close() {
      // Ending the session releases the advisory lock.
      await db.end();
    },
  };
}
