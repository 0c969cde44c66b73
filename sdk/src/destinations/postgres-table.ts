// What `--postgres` finds before it writes: whose database it is, which table `--table` names once
// resolved (the key of its lock and its cursor, so `loads` and `public.loads` are one copy), and whether
// the tables already there keep every value exactly. Everything here only reads the catalog; the
// upgrades it returns are run by the caller, and only where they cannot change a stored value.
import { CliError } from '@loadfeed/spec/cli';
import { LOAD_COLUMNS, type LoadColumn } from './load-columns.js';
import { RECOPY, type FoundColumn, type Misfit } from './table-check.js';

/** The part of pg's client this file uses. */
export interface Queryable {
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface ResolvedTable {
  schema: string;
  name: string;
  /** `schema.name`, unquoted: the key of the lock and of the cursor row. */
  identity: string;
  /** Quoted, for statements. */
  loads: string;
  cursor: string;
  /** The keys a cursor of this table may have been saved under before the key was the resolved name. */
  cursorKeys: string[];
  /** Which of the two tables exist already. */
  loadsExists: boolean;
  cursorExists: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A loadfeed server's own schema: its status type and its table of applied SQL definitions. */
const SERVER_DATABASE = `
SELECT coalesce((SELECT n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = 'load_status' LIMIT 1),
                (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'sql_definitions' AND c.relkind = 'r' LIMIT 1)) AS schema`;

const RELATION = `
SELECT n.nspname AS schema, c.relname AS name, c.relpersistence AS persistence,
       n.oid = pg_my_temp_schema() OR n.nspname LIKE 'pg_temp%' AS temporary
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.oid = to_regclass($1::text)`;

const COLUMNS = `
SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS "notNull"
  FROM pg_attribute a
 WHERE a.attrelid = to_regclass($1::text) AND a.attnum > 0 AND NOT a.attisdropped`;

/** Whether a unique index covers exactly `column`, as ON CONFLICT (column) needs. */
const UNIQUE_ON = `
SELECT EXISTS (
  SELECT FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
   WHERE i.indrelid = to_regclass($1::text) AND i.indisunique AND i.indnkeyatts = 1 AND i.indpred IS NULL AND a.attname = $2::text
) AS unique`;

/** Refuses a loadfeed server's own database, before anything is written there. */
export async function refuseServerDatabase(db: Queryable): Promise<void> {
  const [found] = (await db.query<{ schema: string | null }>(SERVER_DATABASE)).rows;
  if (found?.schema) {
    throw new CliError(`this is a loadfeed server's own database (type load_status in schema ${found.schema}): sync into a database of your own`);
  }
}

/** Resolves `loads` or `warehouse.loads` as this session sees it; refuses a table that keeps nothing. */
export async function resolveTable(db: Queryable, table: string): Promise<ResolvedTable> {
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new CliError(`--table ${JSON.stringify(table)} is not a table name (letters, digits and _, optionally schema.table)`);
  }
  const given = parts.map(quote).join('.');
  const [existing] = (await db.query<{ schema: string; name: string; persistence: string; temporary: boolean }>(RELATION, [given])).rows;
  let schema: string;
  let name: string;
  if (existing) {
    if (existing.temporary || existing.persistence === 't') throw keepsNothing(table, 'a temporary table ends with the session');
    if (existing.persistence === 'u') throw keepsNothing(table, 'an unlogged table is emptied after a crash, while its cursor stays');
    ({ schema, name } = existing);
  } else {
    name = parts.at(-1)!;
    const [current] = (await db.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows;
    const named = parts.length === 2 ? parts[0]! : current?.schema;
    if (!named) throw new CliError(`no schema of the search_path exists to create ${table} in: give --table <schema>.${table}`);
    if (named.toLowerCase().startsWith('pg_temp')) throw keepsNothing(table, 'a temporary table ends with the session');
    schema = named;
  }
  const loads = `${quote(schema)}.${quote(name)}`;
  const cursor = `${quote(schema)}.loadfeed_cursor`;
  const [cursorRelation] = (await db.query<{ persistence: string }>(RELATION, [cursor])).rows;
  if (cursorRelation?.persistence === 'u' || cursorRelation?.persistence === 't') throw keepsNothing(`${schema}.loadfeed_cursor`, 'it is not kept through a crash');
  const identity = `${schema}.${name}`;
  return {
    schema,
    name,
    identity,
    loads,
    cursor,
    cursorKeys: [...new Set([identity, table, name])],
    loadsExists: existing !== undefined,
    cursorExists: cursorRelation !== undefined,
  };
}

const keepsNothing = (table: string, why: string) => new CliError(`--table ${table} keeps nothing: ${why}; give a table of a schema of your own`);

export interface TableCheck {
  /** Columns that cannot hold the copy: refused. */
  misfits: Misfit[];
  /** Statements that only loosen a constraint or add a nullable column (no stored value changes), run before the first write. */
  upgrades: string[];
  /** Whether the loads table has its removed_at column already (README "Removals"). */
  removedAt: boolean;
}

/** Checks the existing tables of a copy against the columns it writes. */
export async function checkTables(db: Queryable, table: ResolvedTable): Promise<TableCheck> {
  const misfits: Misfit[] = [];
  const upgrades: string[] = [];
  let removedAt = false;
  const [{ TimeZone: timeZone } = { TimeZone: 'UTC' }] = (await db.query<{ TimeZone: string }>('SHOW TimeZone')).rows;
  const recopy = `${RECOPY} (DELETE FROM ${table.cursor} WHERE feed = '${table.identity}')`;
  if (table.loadsExists) {
    const found = await columnsOf(db, table.loads);
    for (const column of LOAD_COLUMNS) {
      const existing = found.get(column.column);
      if (existing === undefined) {
        misfits.push({ column: column.column, why: 'is missing', fix: `ALTER TABLE ${table.loads} ADD COLUMN ${column.column} ${column.type}, ${recopy}` });
        continue;
      }
      const judged = judge(column, existing, table.loads, timeZone, recopy);
      if (judged.misfit) misfits.push(judged.misfit);
      if (judged.upgrade) upgrades.push(judged.upgrade);
    }
    const removed = found.get('removed_at');
    if (removed === undefined) upgrades.push(`ALTER TABLE ${table.loads} ADD COLUMN removed_at timestamptz`);
    else if (removed.type !== 'timestamp with time zone') misfits.push({ column: 'removed_at', why: `is ${removed.type}, not timestamptz`, fix: `ALTER TABLE ${table.loads} ALTER COLUMN removed_at TYPE timestamptz USING NULL` });
    else removedAt = true;
    // When a sync first found the load absent, for the next run to confirm (README "Removals").
    if (!found.has('suspected_at')) upgrades.push(`ALTER TABLE ${table.loads} ADD COLUMN suspected_at timestamptz`);
    if (found.has('load_number') && !(await uniqueOn(db, table.loads, 'load_number'))) {
      misfits.push({ column: 'load_number', why: 'has no unique index, which the upsert needs', fix: `ALTER TABLE ${table.loads} ADD PRIMARY KEY (load_number)` });
    }
  }
  if (table.cursorExists) {
    const found = await columnsOf(db, table.cursor);
    const cursor = found.get('cursor');
    if (!found.has('feed') || cursor === undefined) {
      misfits.push({ column: 'loadfeed_cursor.cursor', why: 'is missing (the table is not the one loadfeed keeps)', fix: `rename ${table.cursor}, which loadfeed needs for its cursor` });
    } else if (cursor.type !== 'timestamp with time zone') {
      misfits.push({ column: `${table.cursor}.cursor`, why: `is ${cursor.type}, not timestamptz`, fix: timestampFix(table.cursor, 'cursor', cursor.type, timeZone) });
    } else if (!(await uniqueOn(db, table.cursor, 'feed'))) {
      misfits.push({ column: `${table.cursor}.feed`, why: 'has no unique index, which saving the cursor needs', fix: `ALTER TABLE ${table.cursor} ADD PRIMARY KEY (feed)` });
    }
  }
  return { misfits, upgrades, removedAt };
}

async function columnsOf(db: Queryable, relation: string): Promise<Map<string, FoundColumn>> {
  const rows = (await db.query<FoundColumn & { name: string }>(COLUMNS, [relation])).rows;
  return new Map(rows.map((row) => [row.name, { type: row.type, notNull: row.notNull }]));
}

async function uniqueOn(db: Queryable, relation: string, column: string): Promise<boolean> {
  return (await db.query<{ unique: boolean }>(UNIQUE_ON, [relation, column])).rows[0]?.unique === true;
}

/** What an existing column's type does to the API's values. */
function judge(column: LoadColumn, found: FoundColumn, loads: string, timeZone: string, recopy: string): { misfit?: Misfit; upgrade?: string } {
  const alter = `ALTER TABLE ${loads} ALTER COLUMN ${column.column}`;
  const result: { misfit?: Misfit; upgrade?: string } = {};
  if (found.notNull && !column.notNull) result.upgrade = `${alter} DROP NOT NULL`;
  const type = found.type;
  if (column.type === 'timestamptz') {
    const precision = /^timestamp\((\d)\) with time zone$/.exec(type)?.[1];
    if (type === 'timestamp with time zone' || (precision !== undefined && Number(precision) >= 3)) return result;
    const why = precision !== undefined ? `is ${type}, which rounds the milliseconds` : `is ${type}, not timestamptz: it does not hold an instant`;
    return { misfit: { column: column.column, why, fix: precision !== undefined ? `${alter} TYPE timestamptz, ${recopy}` : timestampFix(loads, column.column, type, timeZone) } };
  }
  if (column.type === 'numeric') {
    if (type === 'numeric' || type === 'text') return result;
    return { misfit: { column: column.column, why: `is ${type}, which rounds or refuses decimals such as 1234.567`, fix: `${alter} TYPE numeric, ${recopy}` } };
  }
  if (type === 'text' || type === 'character varying') return result;
  if (/^character varying\(\d+\)$/.test(type)) return { upgrade: [`${alter} TYPE text`, ...(result.upgrade ? [result.upgrade] : [])].join('; ') };
  return { misfit: { column: column.column, why: `is ${type}, not text`, fix: `${alter} TYPE text, ${recopy}` } };
}

function timestampFix(table: string, column: string, type: string, timeZone: string): string {
  if (type !== 'timestamp without time zone') return `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE timestamptz USING ${column}::timestamptz`;
  // A timestamptz written into it was stored as the session's wall time: the database's TimeZone unless a client set another.
  return `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE timestamptz USING ${column} AT TIME ZONE '${timeZone}' (the zone its values were written in: this database's TimeZone is ${timeZone})`;
}
