// `--duckdb loads.duckdb`: a DuckDB file, for analytics (one statement turns it into Parquet: sdk/README.md).
// Table `loads` with the PostgreSQL copy's column names; date-times as TIMESTAMPTZ, decimals as VARCHAR,
// exactly as served (DuckDB's DECIMAL has a fixed scale of at most 38 digits, so it could round), the
// rest VARCHAR; the cursor in `loadfeed_cursor`. Each page's rows and its cursor are committed in ONE
// transaction, and DuckDB's write-ahead log keeps a commit through a kill. DuckDB lets one process write a
// file at a time: a second sync is refused by DuckDB's own lock, named in one line.
// @duckdb/node-api is an optional dependency, loaded only here.
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { spanBounds, type PickupSpan } from '../removals/copy.js';
import { importOptional, refuseEphemeralPath, type DestinationKind, type OptionalPackage } from './kind.js';
import { LOAD_COLUMNS, type LoadColumn } from './load-columns.js';
import { RECOPY, refuseMisfits, type Misfit } from './table-check.js';

/** The part of @duckdb/node-api this file uses. */
interface DuckConnection {
  run(sql: string, values?: unknown[]): Promise<unknown>;
  runAndReadAll(sql: string, values?: unknown[]): Promise<{ getRowObjectsJson(): Record<string, unknown>[] }>;
  closeSync(): void;
}
interface DuckInstance {
  connect(): Promise<DuckConnection>;
  closeSync(): void;
}
interface DuckModule {
  DuckDBInstance: { create(path: string, options?: Record<string, string>): Promise<DuckInstance> };
}

const DUCKDB: OptionalPackage = { name: '@duckdb/node-api', version: '1.5.6-r.1' };

export const duckdbKind: DestinationKind = {
  flag: 'duckdb',
  value: '<file.duckdb>',
  title: 'DuckDB',
  help: ['A DuckDB database: table `loads` keyed by load_number, the cursor in table', '`loadfeed_cursor` (needs the optional package @duckdb/node-api)'],
  optionalPackage: DUCKDB,
  open: (path, _extras, { write }) => openDuckdbDestination(path, { write }),
  describeError(error) {
    const message = error instanceof Error ? error.message : '';
    if (/^IO Error: Could not set lock on file/.test(message)) {
      const pid = /\(PID (\d+)\)/.exec(message)?.[1];
      return `another process${pid ? ` (${pid})` : ''} has the DuckDB file open (a loadfeed sync, or a DuckDB session): try again when it ends`;
    }
    return DUCKDB_ERROR.test(message) ? `DuckDB: ${message.split('\n')[0]}` : undefined;
  },
};

/** How DuckDB's errors begin: their kind, then "Error:". */
const DUCKDB_ERROR = /^(IO|Catalog|Binder|Constraint|Conversion|Invalid Input|Parser|Transaction|TransactionContext|Serialization|Out of Memory|Internal|Permission|Not implemented) Error: /;

const TYPE: Record<LoadColumn['type'], string> = { text: 'VARCHAR', timestamptz: 'TIMESTAMPTZ', numeric: 'VARCHAR' };
const FOUND_TYPE: Record<LoadColumn['type'], string> = { text: 'VARCHAR', timestamptz: 'TIMESTAMP WITH TIME ZONE', numeric: 'VARCHAR' };
const others = LOAD_COLUMNS.filter((column) => column.field !== 'loadNumber');
const quote = (name: string) => `"${name}"`;

/** The page's rows arrive as one JSON text; from_json reads the API's field names into columns. */
const PAGE_SHAPE = JSON.stringify([Object.fromEntries(LOAD_COLUMNS.map((column) => [column.field, 'VARCHAR']))]);
const asColumn = (column: LoadColumn) => (column.type === 'timestamptz' ? `CAST(page.${quote(column.field)} AS TIMESTAMPTZ)` : `page.${quote(column.field)}`);
/** A column read back in the API's shape: date-times as SPEC's UTC milliseconds with Z. */
const asApiValue = (column: LoadColumn) =>
  column.type === 'timestamptz'
    ? `strftime(${column.column} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS ${quote(column.field)}`
    : `${column.column} AS ${quote(column.field)}`;

const BATCH_SIZE = 1000;

const IN_SPAN = `removed_at IS NULL AND CASE WHEN CAST($1 AS BOOLEAN) THEN scheduled_pickup_date IS NULL
  ELSE scheduled_pickup_date >= CAST($2 AS TIMESTAMPTZ) AND (CAST($3 AS TIMESTAMPTZ) IS NULL OR scheduled_pickup_date < CAST($3 AS TIMESTAMPTZ)) END`;
const spanParameters = (span: PickupSpan) => (span === 'none' ? [true, null, null] : [false, ...spanBounds(span)]);

const SQL = {
  createLoads: `
CREATE TABLE loads (
  load_number VARCHAR PRIMARY KEY,
  ${others.map((column) => `${column.column} ${TYPE[column.type]}${column.notNull ? ' NOT NULL' : ''}`).join(',\n  ')},
  removed_at TIMESTAMPTZ,
  suspected_at TIMESTAMPTZ
)`,
  addRemovedAt: `ALTER TABLE loads ADD COLUMN removed_at TIMESTAMPTZ`,
  // When a sync first found the load absent, for the next run to confirm (README "Removals").
  addSuspectedAt: `ALTER TABLE loads ADD COLUMN suspected_at TIMESTAMPTZ`,
  createCursor: `CREATE TABLE loadfeed_cursor (feed VARCHAR PRIMARY KEY, cursor TIMESTAMPTZ NOT NULL)`,
  upsertPage: `
INSERT INTO loads AS copy (${LOAD_COLUMNS.map((column) => column.column).join(', ')})
SELECT ${LOAD_COLUMNS.map(asColumn).join(', ')}
  FROM (SELECT unnest(from_json($1::JSON, '${PAGE_SHAPE}'), recursive := true)) AS page
ON CONFLICT (load_number) DO UPDATE SET
  ${others.map((column) => `${column.column} = excluded.${column.column}`).join(',\n  ')},
  removed_at = NULL,
  suspected_at = NULL
WHERE excluded.updated_at >= copy.updated_at`,
  // Removal detection (README "Removals"): counts over loads not marked removed, by pickup date.
  countSpan: `SELECT CAST(count(*) AS INTEGER) AS n FROM loads WHERE ${IN_SPAN}`,
  listSpan: `SELECT load_number FROM loads WHERE ${IN_SPAN}`,
  latestPickup: `SELECT strftime(max(scheduled_pickup_date) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS latest FROM loads WHERE removed_at IS NULL`,
  markRemoved: `UPDATE loads SET removed_at = CAST($2 AS TIMESTAMPTZ) WHERE removed_at IS NULL AND load_number IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))`,
  deleteRemoved: `DELETE FROM loads WHERE load_number IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))`,
  removedAmong: `SELECT load_number FROM loads WHERE removed_at IS NOT NULL AND load_number IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))`,
  loadSuspects: `SELECT load_number, strftime(suspected_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS seen_at FROM loads WHERE suspected_at IS NOT NULL AND removed_at IS NULL`,
  clearSuspects: `UPDATE loads SET suspected_at = NULL WHERE suspected_at IS NOT NULL`,
  saveSuspects: `UPDATE loads SET suspected_at = CAST(suspect."seenAt" AS TIMESTAMPTZ)
  FROM (SELECT unnest(from_json($1::JSON, '[{"loadNumber":"VARCHAR","seenAt":"VARCHAR"}]'), recursive := true)) AS suspect
 WHERE loads.load_number = suspect."loadNumber"`,
  saveCursor: `
INSERT INTO loadfeed_cursor AS saved (feed, cursor) VALUES ('loads', CAST($1 AS TIMESTAMPTZ))
ON CONFLICT (feed) DO UPDATE SET cursor = greatest(saved.cursor, excluded.cursor)`,
  loadCursor: `SELECT strftime(cursor AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS cursor FROM loadfeed_cursor WHERE feed = 'loads'`,
  readRows: `SELECT ${LOAD_COLUMNS.map(asApiValue).join(', ')} FROM loads WHERE load_number IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))`,
  loadNumbers: `SELECT load_number FROM loads WHERE load_number > $1::VARCHAR ORDER BY load_number LIMIT ${BATCH_SIZE}`,
  tables: `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('loads', 'loadfeed_cursor')`,
  columns: `SELECT table_name AS "table", column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name IN ('loads', 'loadfeed_cursor')`,
};

/** Opens (and on the first run creates) the copy; with `write: false` it only reads one that exists, for `loadfeed verify`. */
export async function openDuckdbDestination(path: string, options: { write?: boolean } = {}): Promise<CopyDestination> {
  refuseEphemeralPath('duckdb', path);
  const { DuckDBInstance } = await importOptional<DuckModule>('duckdb', DUCKDB);
  const writing = options.write ?? true;
  if (!writing && !(await exists(path))) throw new CliError(`${path} does not exist: run \`loadfeed sync --duckdb ${path}\` first`);
  const instance = await DuckDBInstance.create(path, writing ? {} : { access_mode: 'READ_ONLY' });
  let db: DuckConnection | undefined;
  let marks: boolean;
  try {
    db = await instance.connect();
    marks = await prepareTables(db, path, writing);
  } catch (error) {
    db?.closeSync();
    instance.closeSync();
    throw error;
  }
  const connection = db;
  const inTransaction = async (body: () => Promise<void>) => {
    await connection.run('BEGIN TRANSACTION');
    try {
      await body();
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => {});
      throw error;
    }
  };
  const all = async <Row>(sql: string, values: unknown[] = []) => (await connection.runAndReadAll(sql, values)).getRowObjectsJson() as Row[];

  return {
    async loadCursor() {
      const [row] = await all<{ cursor: string }>(SQL.loadCursor);
      return row?.cursor;
    },
    async write(rows: LoadRow[], cursor: string | undefined) {
      await inTransaction(async () => {
        if (rows.length > 0) await connection.run(SQL.upsertPage, [JSON.stringify(rows)]);
        if (cursor !== undefined) await connection.run(SQL.saveCursor, [cursor]);
      });
    },
    async readRows(loadNumbers) {
      return all<LoadRow>(SQL.readRows, [JSON.stringify(loadNumbers)]);
    },
    async *loadNumbers() {
      // Every loadNumber sorts after the empty text.
      let after = '';
      for (;;) {
        const batch = (await all<{ load_number: string }>(SQL.loadNumbers, [after])).map((row) => row.load_number);
        if (batch.length > 0) yield batch;
        if (batch.length < BATCH_SIZE) return;
        after = batch.at(-1)!;
      }
    },
    removals: marks
      ? {
          countLoads: async (span) => (await all<{ n: number }>(SQL.countSpan, spanParameters(span)))[0]!.n,
          listLoads: async (span) => (await all<{ load_number: string }>(SQL.listSpan, spanParameters(span))).map((row) => row.load_number),
          latestPickup: async () => (await all<{ latest: string | null }>(SQL.latestPickup))[0]?.latest ?? undefined,
          async markRemoved(loadNumbers, removedAt, { delete: deleting }) {
            if (deleting) await connection.run(SQL.deleteRemoved, [JSON.stringify(loadNumbers)]);
            else await connection.run(SQL.markRemoved, [JSON.stringify(loadNumbers), removedAt]);
          },
          removedAmong: async (loadNumbers) => new Set((await all<{ load_number: string }>(SQL.removedAmong, [JSON.stringify(loadNumbers)])).map((row) => row.load_number)),
          ...(writing
            ? {
                loadSuspects: async () => (await all<{ load_number: string; seen_at: string }>(SQL.loadSuspects)).map((row) => ({ loadNumber: row.load_number, seenAt: row.seen_at })),
                async saveSuspects(suspects) {
                  await inTransaction(async () => {
                    await connection.run(SQL.clearSuspects);
                    if (suspects.length > 0) await connection.run(SQL.saveSuspects, [JSON.stringify(suspects)]);
                  });
                },
              }
            : {}),
        }
      : undefined,
    async close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function exists(path: string): Promise<boolean> {
  const { access } = await import('node:fs/promises');
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Checks and creates the tables; resolves to whether the copy has its removed_at column. */
async function prepareTables(db: DuckConnection, path: string, writing: boolean): Promise<boolean> {
  const present = new Set(((await db.runAndReadAll(SQL.tables)).getRowObjectsJson() as { name: string }[]).map((row) => row.name));
  if (!writing && present.size < 2) throw new CliError(`${path} holds no copy (tables loads and loadfeed_cursor): run \`loadfeed sync --duckdb\` first`);
  const found = (await db.runAndReadAll(SQL.columns)).getRowObjectsJson() as { table: string; name: string; type: string }[];
  refuseMisfits('loads', misfits(found, present));
  const has = (name: string) => found.some((column) => column.table === 'loads' && column.name === name);
  if (!writing) return has('removed_at');
  if (!present.has('loads')) await db.run(SQL.createLoads);
  // A copy from before removals (or their suspects) gains the column; adding a nullable column changes no row.
  else {
    if (!has('removed_at')) await db.run(SQL.addRemovedAt);
    if (!has('suspected_at')) await db.run(SQL.addSuspectedAt);
  }
  if (!present.has('loadfeed_cursor')) await db.run(SQL.createCursor);
  return true;
}

/** A TIMESTAMP (without time zone), a DECIMAL or a DOUBLE would change the API's values: refused. */
function misfits(found: readonly { table: string; name: string; type: string }[], present: ReadonlySet<string>): Misfit[] {
  const typeOf = (table: string, name: string) => found.find((column) => column.table === table && column.name === name)?.type;
  const result: Misfit[] = [];
  if (present.has('loads')) {
    for (const column of LOAD_COLUMNS) {
      const type = typeOf('loads', column.column);
      const wanted = FOUND_TYPE[column.type];
      if (type === undefined) result.push({ column: column.column, why: 'is missing', fix: `ALTER TABLE loads ADD COLUMN ${column.column} ${TYPE[column.type]}, ${RECOPY} (DELETE FROM loadfeed_cursor)` });
      else if (type !== wanted) result.push({ column: column.column, why: `is ${type}, which does not keep the API's value (${wanted} does)`, fix: `sync into a new file` });
    }
  }
  const cursor = present.has('loadfeed_cursor') ? typeOf('loadfeed_cursor', 'cursor') : FOUND_TYPE.timestamptz;
  if (cursor !== FOUND_TYPE.timestamptz) result.push({ column: 'loadfeed_cursor.cursor', why: `is ${cursor ?? 'missing'}, not TIMESTAMPTZ`, fix: 'sync into a new file' });
  return result;
}
