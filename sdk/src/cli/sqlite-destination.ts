// `--sqlite loads.db`: a `loads` table keyed by loadNumber, and the cursor in the same database. A page's
// rows and the cursor they move are committed in ONE transaction, so the database never holds a cursor
// ahead of its rows.
// better-sqlite3 is an optional dependency, loaded only here, so that library users never build it.
import { LOAD_FIELDS } from '@loadfeed/spec';
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { CopyDestination } from '../destination.js';

/** The part of better-sqlite3's API this file uses. */
interface SqliteStatement {
  run(...parameters: unknown[]): unknown;
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
  pluck(): SqliteStatement;
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string): unknown;
  transaction<A extends unknown[]>(body: (...args: A) => void): (...args: A) => void;
  close(): void;
}
type SqliteConstructor = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => SqliteDatabase;

const SQLITE_PACKAGE = 'better-sqlite3';
const SQLITE_VERSION = '12.11.1';

const quote = (name: string) => `"${name}"`;
const otherFields = LOAD_FIELDS.filter((field) => field !== 'loadNumber');

/** The schema: every Load field as a column under its API name; decimal strings stay text, so nothing rounds. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS loads (
  "loadNumber" TEXT PRIMARY KEY NOT NULL,
  ${otherFields.map((field) => `${quote(field)} TEXT`).join(',\n  ')}
);
CREATE TABLE IF NOT EXISTS loadfeed_sync (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  cursor TEXT NOT NULL
);`;

const UPSERT_LOAD = `
INSERT INTO loads (${LOAD_FIELDS.map(quote).join(', ')})
VALUES (${LOAD_FIELDS.map(() => '?').join(', ')})
ON CONFLICT ("loadNumber") DO UPDATE SET
  ${otherFields.map((field) => `${quote(field)} = excluded.${quote(field)}`).join(',\n  ')}`;

const SAVE_CURSOR = `
INSERT INTO loadfeed_sync (id, cursor) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET cursor = excluded.cursor`;

const LOAD_CURSOR = 'SELECT cursor FROM loadfeed_sync WHERE id = 1';

const COPY_TABLES = `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('loads', 'loadfeed_sync')`;

const READ_ROWS = `SELECT ${LOAD_FIELDS.map(quote).join(', ')} FROM loads WHERE "loadNumber" IN (SELECT value FROM json_each(?))`;

// From '' (before every loadNumber, none is empty): one range of the key's index a batch, where an
// `? IS NULL OR` form made SQLite scan from the start for every batch.
const LOAD_NUMBERS = 'SELECT "loadNumber" FROM loads WHERE "loadNumber" > ? ORDER BY "loadNumber" LIMIT ?';

const BATCH = 1000;

async function loadSqlite(): Promise<SqliteConstructor> {
  // A specifier in a variable keeps TypeScript from requiring the optional package's types.
  const specifier: string = SQLITE_PACKAGE;
  try {
    const module = (await import(specifier)) as { default: SqliteConstructor };
    return module.default;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new CliError(`--sqlite needs the optional package ${SQLITE_PACKAGE}: run \`npm install ${SQLITE_PACKAGE}@${SQLITE_VERSION}\` (or use --out <file.ndjson>)`);
    }
    throw new CliError(`${SQLITE_PACKAGE} is installed but does not load (${(error as Error).message.split('\n')[0]}): reinstall it for this Node.js`);
  }
}

/** Opens (and on the first run creates) the copy; with `write: false` it only reads one that exists, for `loadfeed verify`. */
export async function openSqliteDestination(path: string, options: { write?: boolean } = {}): Promise<CopyDestination> {
  const Database = await loadSqlite();
  const writing = options.write ?? true;
  let db: SqliteDatabase;
  try {
    db = writing ? new Database(path) : new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    if (!writing) throw new CliError(`cannot open ${path} as a SQLite copy (${(error as Error).message}): run \`loadfeed sync --sqlite\` first`);
    throw error;
  }
  if (writing) {
    // WAL lets readers query the table while a sync writes to it.
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
  } else if (db.prepare(COPY_TABLES).pluck().get() !== 2) {
    db.close();
    throw new CliError(`${path} holds no copy (tables loads and loadfeed_sync): run \`loadfeed sync --sqlite\` first`);
  }
  const upsertLoad = db.prepare(UPSERT_LOAD);
  const saveCursor = db.prepare(SAVE_CURSOR);
  const loadCursor = db.prepare(LOAD_CURSOR);
  const readRows = db.prepare(READ_ROWS);
  const loadNumbers = db.prepare(LOAD_NUMBERS).pluck();
  // better-sqlite3 commits the function's writes as one transaction, or rolls them back if it throws.
  const writePage = db.transaction((rows: LoadRow[], cursor: string | undefined) => {
    for (const row of rows) upsertLoad.run(LOAD_FIELDS.map((field) => row[field]));
    if (cursor !== undefined) saveCursor.run(cursor);
  });

  return {
    loadCursor: () => (loadCursor.get() as { cursor: string } | undefined)?.cursor,
    write(rows, cursor) {
      writePage(rows, cursor);
    },
    async readRows(wanted) {
      return readRows.all(JSON.stringify(wanted)) as LoadRow[];
    },
    async *loadNumbers() {
      let after = '';
      for (;;) {
        const batch = loadNumbers.all(after, BATCH) as string[];
        if (batch.length > 0) yield batch;
        if (batch.length < BATCH) return;
        after = batch.at(-1)!;
      }
    },
    async close() {
      db.close();
    },
  };
}
