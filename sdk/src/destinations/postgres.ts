// `--postgres <url>`: the customer's own PostgreSQL. A table keyed by load_number with typed columns
// (load-columns.ts), created on the first run, and the cursor in `loadfeed_cursor` beside it, one row per
// synced table. Each page's rows and the cursor after them are committed in ONE transaction, so a
// process killed at any moment leaves the page and its cursor, or neither. A sync holds a session
// advisory lock on its table, so that two runs (an overlapping cron job) never write one copy at once.
// The table is resolved first (postgres-table.ts): its lock and cursor are keyed by schema.table, existing
// tables are checked, and only a missing table is created, so later runs need no CREATE on the schema.
// pg is an optional dependency, loaded only here, so that library users who do not need it never install it.
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { spanBounds, type PickupSpan } from '../removals/copy.js';
import { importOptional, type DestinationKind, type OptionalPackage } from './kind.js';
import { LOAD_COLUMNS, type LoadColumn } from './load-columns.js';
import { checkTables, quote, refuseServerDatabase, resolveTable, type ResolvedTable } from './postgres-table.js';
import { refuseMisfits } from './table-check.js';

/** The part of pg's API this file uses. */
interface PgClient {
  connect(): Promise<unknown>;
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
type PgClientConstructor = new (config: { connectionString: string; application_name: string }) => PgClient;

const PG: OptionalPackage = { name: 'pg', version: '8.23.1' };

export const postgresKind: DestinationKind = {
  flag: 'postgres',
  value: '<url>',
  title: 'PostgreSQL',
  help: [
    'A PostgreSQL database, e.g. postgres://sync@db.internal/warehouse (a password',
    'is better in PGPASSWORD or ~/.pgpass): table `loads` keyed by load_number,',
    'typed columns, the cursor in table `loadfeed_cursor` (needs the optional',
    'package pg)',
  ],
  extraFlags: { table: { value: '<name>', help: ['With --postgres: the table (default loads; schema.table works)'] } },
  optionalPackage: PG,
  open(connectionString, extras, { write, warn }) {
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:[^/@]+@/i.test(connectionString)) {
      warn?.('note: a password in --postgres shows in the process list; PGPASSWORD or ~/.pgpass keeps it out');
    }
    return openPostgresDestination({ connectionString, write, ...(extras.table === undefined ? {} : { table: extras.table }) });
  },
  describeError(error) {
    if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
    const code = String(error.code);
    const message = error instanceof Error ? error.message : String(error);
    // pg's errors from the server carry a SQLSTATE and a severity; its connection errors a Node code.
    if ('severity' in error) return `PostgreSQL: ${message} (SQLSTATE ${code})`;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') return `cannot reach the database: ${message}`;
    return undefined;
  },
};

export interface PostgresDestinationOptions {
  /** `postgres://user@host:5432/database`; a password may come from PGPASSWORD or ~/.pgpass instead. */
  connectionString: string;
  /** The table of loads, optionally schema-qualified (default `loads`); its lock and cursor are keyed by `schema.table` as resolved. */
  table?: string;
  /** Create the tables when missing and lock the copy for writing (default true); `loadfeed verify` only reads. */
  write?: boolean;
}

const columnType = (column: LoadColumn) => `${column.type}${column.notNull ? ' NOT NULL' : ''}`;
const others = LOAD_COLUMNS.filter((column) => column.field !== 'loadNumber');

/** A column read back in the API's shape: date-times as SPEC's UTC milliseconds with Z, decimals as written. */
function asApiValue(column: LoadColumn): string {
  if (column.type === 'timestamptz') return `to_char(${column.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${quote(column.field)}`;
  if (column.type === 'numeric') return `${column.column}::text AS ${quote(column.field)}`;
  return `${column.column} AS ${quote(column.field)}`;
}

function statements(names: { loads: string; cursor: string }) {
  return {
    createLoads: `
CREATE TABLE IF NOT EXISTS ${names.loads} (
  load_number text PRIMARY KEY,
  ${others.map((column) => `${column.column} ${columnType(column)}`).join(',\n  ')},
  removed_at timestamptz,
  suspected_at timestamptz
)`,
    createCursor: `
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
  ${others.map((column) => `${column.column} = excluded.${column.column}`).join(',\n  ')},
  removed_at = NULL,
  suspected_at = NULL
WHERE excluded.updated_at >= copy.updated_at`,
    // Removal detection (README "Removals"): counts over loads not marked removed, by pickup date.
    countSpan: `SELECT count(*)::int AS n FROM ${names.loads} WHERE ${IN_SPAN}`,
    listSpan: `SELECT load_number FROM ${names.loads} WHERE ${IN_SPAN}`,
    latestPickup: `SELECT to_char(max(scheduled_pickup_date) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS latest FROM ${names.loads} WHERE removed_at IS NULL`,
    markRemoved: `UPDATE ${names.loads} SET removed_at = $2::timestamptz WHERE removed_at IS NULL AND load_number = ANY ($1::text[])`,
    deleteRemoved: `DELETE FROM ${names.loads} WHERE load_number = ANY ($1::text[])`,
    removedAmong: `SELECT load_number FROM ${names.loads} WHERE removed_at IS NOT NULL AND load_number = ANY ($1::text[])`,
    loadSuspects: `SELECT load_number, to_char(suspected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS seen_at FROM ${names.loads} WHERE suspected_at IS NOT NULL AND removed_at IS NULL`,
    clearSuspects: `UPDATE ${names.loads} SET suspected_at = NULL WHERE suspected_at IS NOT NULL`,
    saveSuspects: `UPDATE ${names.loads} AS copy SET suspected_at = suspect.seen_at
  FROM unnest($1::text[], $2::timestamptz[]) AS suspect(load_number, seen_at) WHERE copy.load_number = suspect.load_number`,
    saveCursor: `
INSERT INTO ${names.cursor} AS saved (feed, cursor) VALUES ($1::text, $2::timestamptz)
ON CONFLICT (feed) DO UPDATE SET cursor = greatest(saved.cursor, excluded.cursor)`,
    // The cursor of this table under any key it was saved by (an earlier release keyed it by --table as given).
    loadCursor: `SELECT to_char(max(cursor) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS cursor FROM ${names.cursor} WHERE feed = ANY ($1::text[])`,
    readRows: `SELECT ${LOAD_COLUMNS.map(asApiValue).join(', ')} FROM ${names.loads} WHERE load_number = ANY ($1::text[])`,
    // From '' (before every loadNumber): one range of the key's index a batch.
    loadNumbers: `SELECT load_number FROM ${names.loads} WHERE load_number > $1::text ORDER BY load_number LIMIT $2::int`,
    // One lock per copy, whatever the session's search_path: the key is the table's resolved schema.table.
    lock: `SELECT pg_try_advisory_lock(hashtextextended('loadfeed sync ' || $1::text, 0)) AS locked`,
  };
}

const BATCH = 1000;

const IN_SPAN = `removed_at IS NULL AND CASE WHEN $1::boolean THEN scheduled_pickup_date IS NULL
  ELSE scheduled_pickup_date >= $2::timestamptz AND ($3::timestamptz IS NULL OR scheduled_pickup_date < $3::timestamptz) END`;
const spanParameters = (span: PickupSpan) => (span === 'none' ? [true, null, null] : [false, ...spanBounds(span)]);

export async function openPostgresDestination(options: PostgresDestinationOptions): Promise<CopyDestination> {
  const { default: pg } = await importOptional<{ default: { Client: PgClientConstructor } }>('postgres', PG);
  const db = new pg.Client({ connectionString: options.connectionString, application_name: 'loadfeed' });
  // A connection lost between queries surfaces on the next query; without a listener it would crash the process.
  db.on('error', () => {});
  await db.connect();
  let table: ResolvedTable & { removedAt: boolean };
  try {
    table = await prepare(db, options.table ?? 'loads', options.write ?? true);
  } catch (error) {
    await db.end().catch(() => {});
    throw error;
  }
  const sql = statements(table);
  const inTransaction = async (body: () => Promise<void>) => {
    await db.query('BEGIN');
    try {
      await body();
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK').catch(() => {});
      throw error;
    }
  };

  return {
    async loadCursor() {
      const [row] = (await db.query<{ cursor: string | null }>(sql.loadCursor, [table.cursorKeys])).rows;
      return row?.cursor ?? undefined;
    },
    async write(rows: LoadRow[], cursor: string | undefined) {
      await inTransaction(async () => {
        if (rows.length > 0) await db.query(sql.upsertPage, [JSON.stringify(rows)]);
        if (cursor !== undefined) await db.query(sql.saveCursor, [table.identity, cursor]);
      });
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
    removals: table.removedAt
      ? {
          countLoads: async (span) => (await db.query<{ n: number }>(sql.countSpan, spanParameters(span))).rows[0]!.n,
          listLoads: async (span) => (await db.query<{ load_number: string }>(sql.listSpan, spanParameters(span))).rows.map((row) => row.load_number),
          latestPickup: async () => (await db.query<{ latest: string | null }>(sql.latestPickup)).rows[0]?.latest ?? undefined,
          async markRemoved(loadNumbers, removedAt, { delete: deleting }) {
            if (deleting) await db.query(sql.deleteRemoved, [loadNumbers]);
            else await db.query(sql.markRemoved, [loadNumbers, removedAt]);
          },
          removedAmong: async (loadNumbers) => new Set((await db.query<{ load_number: string }>(sql.removedAmong, [loadNumbers])).rows.map((row) => row.load_number)),
          ...(options.write ?? true
            ? {
                loadSuspects: async () => (await db.query<{ load_number: string; seen_at: string }>(sql.loadSuspects)).rows.map((row) => ({ loadNumber: row.load_number, seenAt: row.seen_at })),
                async saveSuspects(suspects) {
                  await inTransaction(async () => {
                    await db.query(sql.clearSuspects);
                    if (suspects.length > 0) await db.query(sql.saveSuspects, [suspects.map((suspect) => suspect.loadNumber), suspects.map((suspect) => suspect.seenAt)]);
                  });
                },
              }
            : {}),
        }
      : undefined,
    async close() {
      // Ending the session releases the advisory lock.
      await db.end();
    },
  };
}

/** Everything before the first write: whose database, which table, the lock, the checks, the missing tables. */
async function prepare(db: PgClient, given: string, writing: boolean): Promise<ResolvedTable & { removedAt: boolean }> {
  await refuseServerDatabase(db);
  const table = await resolveTable(db, given);
  const sql = statements(table);
  if (!writing && !(table.loadsExists && table.cursorExists)) {
    throw new CliError(`the database has no copy in ${given} (and loadfeed_cursor): run \`loadfeed sync --postgres\` first`);
  }
  if (writing) {
    const [lock] = (await db.query<{ locked: boolean }>(sql.lock, [table.identity])).rows;
    if (!lock?.locked) throw new CliError(`another loadfeed sync is writing ${given} in this database now; try again when it ends`);
  }
  const check = await checkTables(db, table);
  refuseMisfits(table.identity, check.misfits);
  if (!writing) return { ...table, removedAt: check.removedAt };
  // CREATE only for a table that is missing: CREATE TABLE IF NOT EXISTS checks the CREATE privilege first.
  if (!table.loadsExists) await db.query(sql.createLoads);
  if (!table.cursorExists) await db.query(sql.createCursor);
  for (const upgrade of check.upgrades) {
    try {
      await db.query(upgrade);
    } catch (error) {
      throw new CliError(`the table ${table.identity} needs \`${upgrade}\` (it only loosens a constraint or adds a column), which this role may not run: ${(error as Error).message}`);
    }
  }
  return { ...table, removedAt: true };
}
