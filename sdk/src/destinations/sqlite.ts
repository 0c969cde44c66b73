// `--sqlite loads.db`: a `loads` table keyed by loadNumber, and the cursor in the same database. A page's
// rows and the cursor they move are committed in ONE transaction, so the database never holds a cursor
// ahead of its rows. An older version of a row (re-read through the overlap) never replaces a newer one
// and the cursor only moves forward; a writer holds `<file>.lock` (lock-file.ts) while it runs.
// The SQLite is the runtime's own (node:sqlite on Node 22.13+ and Deno, bun:sqlite on Bun), or the optional
// better-sqlite3 where there is none, loaded only here so that library users never build it
// (sqlite-driver.ts); the table layout and the guarantees are the same whichever runs.
import { LOAD_FIELDS } from '@loadfeed/spec';
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { spanBounds, type PickupSpan, type RemovalCopy, type Suspect } from '../removals/copy.js';
import { importOptional, refuseEphemeralPath, type DestinationKind, type OptionalPackage } from './kind.js';
import { loadSqlite, NODE_SQLITE_ERROR, sqliteCodeName, type SqliteConstructor, type SqliteDatabase, type SqliteStatement } from '../sqlite-driver.js';
import { lockFile, type FileLock } from './lock-file.js';
import { rowOfValues } from './row-values.js';
import { RECOPY, refuseMisfits, type Misfit } from './table-check.js';

const SQLITE: OptionalPackage = { name: 'better-sqlite3', version: '12.11.1', otherwise: ' (or use --out <file.ndjson>)' };

export const sqliteKind: DestinationKind = {
  flag: 'sqlite',
  value: '<file.db>',
  title: 'SQLite',
  help: ['A SQLite database: table `loads` keyed by "loadNumber", the cursor in table', '`loadfeed_sync` (SQLite built into Node 22.13+, Bun and Deno; on an older Node,', 'the optional package better-sqlite3)'],
  optionalPackage: SQLITE,
  open: (path, _extras, { write }) => openSqliteDestination(path, { write }),
  describeError(error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    if (code === NODE_SQLITE_ERROR) {
      const name = sqliteCodeName(error as { errcode?: number; message: string });
      return `SQLite: ${(error as Error).message}${name === undefined ? '' : ` (${name})`}`;
    }
    return code.startsWith('SQLITE_') ? `SQLite: ${(error as Error).message} (${code})` : undefined;
  },
};

const quote = (name: string) => `"${name}"`;
const otherFields = LOAD_FIELDS.filter((field) => field !== 'loadNumber');

/** Every Load field as a column under its API name, as TEXT: decimals and date-times stay as served, so nothing rounds. */
const CREATE_LOADS = `
CREATE TABLE loads (
  "loadNumber" TEXT PRIMARY KEY NOT NULL,
  ${otherFields.map((field) => `${quote(field)} TEXT`).join(',\n  ')},
  "removedAt" TEXT,
  "suspectedAt" TEXT
)`;
/** When the sync found the load gone from the feed (README "Removals"); NULL while the feed serves it. */
const ADD_REMOVED_AT = 'ALTER TABLE loads ADD COLUMN "removedAt" TEXT';
/** When a sync first found the load absent, for the next run to confirm (README "Removals"); NULL otherwise. */
const ADD_SUSPECTED_AT = 'ALTER TABLE loads ADD COLUMN "suspectedAt" TEXT';
const CREATE_CURSOR = `
CREATE TABLE loadfeed_sync (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  cursor TEXT NOT NULL
)`;

// Date-times are SPEC's fixed shape (UTC, milliseconds, Z), so text order is time order.
const UPSERT_LOAD = `
INSERT INTO loads (${LOAD_FIELDS.map(quote).join(', ')})
VALUES (${LOAD_FIELDS.map(() => '?').join(', ')})
ON CONFLICT ("loadNumber") DO UPDATE SET
  ${otherFields.map((field) => `${quote(field)} = excluded.${quote(field)}`).join(',\n  ')},
  "removedAt" = NULL,
  "suspectedAt" = NULL
WHERE excluded."updatedAt" >= loads."updatedAt"`;

const SAVE_CURSOR = `
INSERT INTO loadfeed_sync (id, cursor) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET cursor = max(cursor, excluded.cursor)`;

const LOAD_CURSOR = 'SELECT cursor FROM loadfeed_sync WHERE id = 1';

const TABLES = `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('loads', 'loadfeed_sync')`;

const COLUMNS = `SELECT name, type, pk FROM pragma_table_info(?)`;

const READ_ROWS = `SELECT ${LOAD_FIELDS.map(quote).join(', ')} FROM loads WHERE "loadNumber" IN (SELECT value FROM json_each(?))`;

// From '' (before every loadNumber, none is empty): one range of the key's index a batch, where an
// `? IS NULL OR` form made SQLite scan from the start for every batch.
const LOAD_NUMBERS = 'SELECT "loadNumber" FROM loads WHERE "loadNumber" > ? ORDER BY "loadNumber" LIMIT ?';

const BATCH = 1000;

// Removal detection's counts, over loads not marked removed; date-times are SPEC's shape, so text order is time order.
const IN_SPAN = `"removedAt" IS NULL AND CASE WHEN @none THEN "scheduledPickupDate" IS NULL
  ELSE "scheduledPickupDate" >= @from AND (@before IS NULL OR "scheduledPickupDate" < @before) END`;
const COUNT_SPAN = `SELECT count(*) AS n FROM loads WHERE ${IN_SPAN}`;
const LIST_SPAN = `SELECT "loadNumber" FROM loads WHERE ${IN_SPAN}`;
const LATEST_PICKUP = `SELECT max("scheduledPickupDate") AS latest FROM loads WHERE "removedAt" IS NULL`;
const MARK_REMOVED = `UPDATE loads SET "removedAt" = ? WHERE "removedAt" IS NULL AND "loadNumber" IN (SELECT value FROM json_each(?))`;
const DELETE_REMOVED = `DELETE FROM loads WHERE "loadNumber" IN (SELECT value FROM json_each(?))`;
const LOAD_SUSPECTS = `SELECT "loadNumber", "suspectedAt" FROM loads WHERE "suspectedAt" IS NOT NULL AND "removedAt" IS NULL`;
const CLEAR_SUSPECTS = `UPDATE loads SET "suspectedAt" = NULL WHERE "suspectedAt" IS NOT NULL`;
const SUSPECT = `UPDATE loads SET "suspectedAt" = ? WHERE "loadNumber" = ?`;
const REMOVED_AMONG = `SELECT "loadNumber" FROM loads WHERE "removedAt" IS NOT NULL AND "loadNumber" IN (SELECT value FROM json_each(?))`;

const spanParameters = (span: PickupSpan) => {
  const [from, before] = span === 'none' ? [null, null] : spanBounds(span);
  return { none: span === 'none' ? 1 : 0, from, before };
};

/** Opens (and on the first run creates) the copy; with `write: false` it only reads one that exists, for `loadfeed verify`. */
export async function openSqliteDestination(path: string, options: { write?: boolean } = {}): Promise<CopyDestination> {
  refuseEphemeralPath('sqlite', path);
  const Database = await loadSqlite(async () => (await importOptional<{ default: SqliteConstructor }>('sqlite', SQLITE)).default);
  const writing = options.write ?? true;
  const lock: FileLock | undefined = writing ? await lockFile(path) : undefined;
  let db: SqliteDatabase | undefined;
  try {
    try {
      db = writing ? new Database(path) : new Database(path, { readonly: true, fileMustExist: true });
    } catch (error) {
      if (!writing) throw new CliError(`cannot open ${path} as a SQLite copy (${(error as Error).message}): run \`loadfeed sync --sqlite\` first`);
      throw error;
    }
    prepareTables(db, path, writing);
    return copyIn(db, lock);
  } catch (error) {
    db?.close();
    await lock?.release();
    throw error;
  }
}

/** Checks the tables a copy finds, creating the missing ones when it writes. */
function prepareTables(db: SqliteDatabase, path: string, writing: boolean): void {
  const present = new Set((db.prepare(TABLES).all() as { name: string }[]).map((row) => row.name));
  if (!writing && present.size < 2) throw new CliError(`${path} holds no copy (tables loads and loadfeed_sync): run \`loadfeed sync --sqlite\` first`);
  // Checked before anything is created or written.
  if (present.has('loads')) refuseMisfits('loads', misfits(db.prepare(COLUMNS).all('loads') as { name: string; type: string; pk: number }[]));
  if (writing) {
    // WAL lets readers query the table while a sync writes to it.
    db.exec('PRAGMA journal_mode = WAL');
    if (!present.has('loads')) db.exec(CREATE_LOADS);
    if (!present.has('loadfeed_sync')) db.exec(CREATE_CURSOR);
    // A copy from before removals gains the column; adding a nullable column changes no row.
    if (present.has('loads') && !hasColumn(db, 'removedAt')) db.exec(ADD_REMOVED_AT);
    if (present.has('loads') && !hasColumn(db, 'suspectedAt')) db.exec(ADD_SUSPECTED_AT);
  }
}

const hasColumn = (db: SqliteDatabase, name: string) => (db.prepare(COLUMNS).all('loads') as { name: string }[]).some((column) => column.name === name);

/**
 * SQLite keeps a value as given in a column of TEXT affinity or none; INTEGER, REAL or NUMERIC affinity
 * (a declared type with INT, REAL, FLOA, DOUB, DEC, NUM…) turns "1234.50" into 1234.5, so it is refused.
 */
function misfits(columns: readonly { name: string; type: string; pk: number }[]): Misfit[] {
  const found = new Map(columns.map((column) => [column.name, column]));
  const result: Misfit[] = [];
  for (const field of LOAD_FIELDS) {
    const column = found.get(field);
    if (column === undefined) {
      result.push({ column: `"${field}"`, why: 'is missing', fix: `ALTER TABLE loads ADD COLUMN "${field}" TEXT, ${RECOPY} (DELETE FROM loadfeed_sync)` });
    } else if (!keepsText(column.type)) {
      result.push({
        column: `"${field}"`,
        why: `is ${column.type}, which changes the API's text (1234.50 becomes 1234.5)`,
        fix: `copy the table into one whose "${field}" is TEXT, or sync into a new file`,
      });
    }
  }
  if (found.has('loadNumber') && found.get('loadNumber')!.pk !== 1) {
    result.push({ column: '"loadNumber"', why: 'is not the primary key, which the upsert needs', fix: 'sync into a new file (SQLite cannot add a primary key to a table)' });
  }
  return result;
}

function keepsText(declared: string): boolean {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return false;
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return true;
  return type === '' || type.includes('BLOB');
}

function copyIn(db: SqliteDatabase, lock: FileLock | undefined): CopyDestination {
  const upsertLoad = db.prepare(UPSERT_LOAD);
  const saveCursor = db.prepare(SAVE_CURSOR);
  const loadCursor = db.prepare(LOAD_CURSOR);
  // Arrays, made into rows in JS: better-sqlite3 builds a row object property by property through V8's
  // API, which cost verify twice what reading the columns as an array and naming them here costs.
  const readRows = db.prepare(READ_ROWS).raw();
  const loadNumbers = db.prepare(LOAD_NUMBERS);
  // The driver commits the function's writes as one transaction, or rolls them back if it throws.
  const writePage = db.transaction((rows: LoadRow[], cursor: string | undefined) => {
    for (const row of rows) upsertLoad.run(LOAD_FIELDS.map((field) => row[field]));
    if (cursor !== undefined) saveCursor.run(cursor);
  });
  let open = true;
  const marks = hasColumn(db, 'removedAt');
  const removedAmong = marks ? db.prepare(REMOVED_AMONG) : undefined;

  return {
    loadCursor: () => (loadCursor.get() as { cursor: string } | undefined)?.cursor,
    write(rows, cursor) {
      writePage(rows, cursor);
    },
    async readRows(wanted) {
      return (readRows.all(JSON.stringify(wanted)) as unknown[][]).map(rowOfValues);
    },
    async *loadNumbers() {
      let after = '';
      for (;;) {
        const batch: string[] = (loadNumbers.all(after, BATCH) as { loadNumber: string }[]).map((row) => row.loadNumber);
        if (batch.length > 0) yield batch;
        if (batch.length < BATCH) return;
        after = batch.at(-1)!;
      }
    },
    ...(removedAmong ? { removals: { ...sqliteRemovals(db, removedAmong), ...(hasColumn(db, 'suspectedAt') ? sqliteSuspects(db) : {}) } } : {}),
    async close() {
      if (open) db.close();
      open = false;
      await lock?.release();
    },
  };
}

function sqliteRemovals(db: SqliteDatabase, removedAmong: SqliteStatement): RemovalCopy {
  const [count, list, latest, mark, remove] = [COUNT_SPAN, LIST_SPAN, LATEST_PICKUP, MARK_REMOVED, DELETE_REMOVED].map((sql) => db.prepare(sql)) as [
    SqliteStatement,
    SqliteStatement,
    SqliteStatement,
    SqliteStatement,
    SqliteStatement,
  ];
  return {
    countLoads: (span) => (count.get(spanParameters(span)) as { n: number }).n,
    listLoads: (span) => (list.all(spanParameters(span)) as { loadNumber: string }[]).map((row) => row.loadNumber),
    latestPickup: () => (latest.get() as { latest: string | null }).latest ?? undefined,
    markRemoved(loadNumbers, removedAt, { delete: deleting }) {
      if (deleting) remove.run(JSON.stringify(loadNumbers));
      else mark.run(removedAt, JSON.stringify(loadNumbers));
    },
    removedAmong: (loadNumbers) => new Set((removedAmong.all(JSON.stringify(loadNumbers)) as { loadNumber: string }[]).map((row) => row.loadNumber)),
  };
}

/** The suspects a run leaves for the next (README "Removals"), on their rows: a write of the row clears one. */
function sqliteSuspects(db: SqliteDatabase): Required<Pick<RemovalCopy, 'loadSuspects' | 'saveSuspects'>> {
  const [load, clear, suspect] = [LOAD_SUSPECTS, CLEAR_SUSPECTS, SUSPECT].map((sql) => db.prepare(sql)) as [SqliteStatement, SqliteStatement, SqliteStatement];
  const save = db.transaction((suspects: readonly Suspect[]) => {
    clear.run();
    for (const { loadNumber, seenAt } of suspects) suspect.run(seenAt, loadNumber);
  });
  return {
    loadSuspects: () => (load.all() as { loadNumber: string; suspectedAt: string }[]).map((row) => ({ loadNumber: row.loadNumber, seenAt: row.suspectedAt })),
    saveSuspects: (suspects) => void save(suspects),
  };
}
