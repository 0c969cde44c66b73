// `--sqlite loads.db`: a `loads` table keyed by loadNumber, and the cursor in the same database. A page's
// rows and the cursor they move are committed in ONE transaction: the upsert opens it, saving the cursor
// commits it, so the database never holds a cursor ahead of its rows. Rows handed over without a cursor
// move (inside a group of rows sharing one updatedAt) ride along with the next commit.
// better-sqlite3 is an optional dependency, loaded only here, so that library users never build it.
import { LOAD_FIELDS } from '@loadfeed/spec';
import { CliError } from '@loadfeed/spec/cli';
import type { LoadRow } from '../client.js';
import type { Destination } from './destination.js';

/** The part of better-sqlite3's API this file uses. */
interface SqliteStatement {
  run(...parameters: unknown[]): unknown;
  get(...parameters: unknown[]): unknown;
}
interface SqliteDatabase {
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string): unknown;
  close(): void;
}
type SqliteConstructor = new (path: string) => SqliteDatabase;

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

export async function openSqliteDestination(path: string): Promise<Destination> {
  const Database = await loadSqlite();
  const db = new Database(path);
  // WAL lets readers query the table while a sync writes to it.
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const upsertLoad = db.prepare(UPSERT_LOAD);
  const saveCursor = db.prepare(SAVE_CURSOR);
  const loadCursor = db.prepare(LOAD_CURSOR);
  const begin = () => {
    if (!db.inTransaction) db.exec('BEGIN IMMEDIATE');
  };

  return {
    upsert(rows: LoadRow[]) {
      begin();
      for (const row of rows) upsertLoad.run(LOAD_FIELDS.map((field) => row[field]));
    },
    cursorStore: {
      load: () => (loadCursor.get() as { cursor: string } | undefined)?.cursor,
      save(cursor) {
        begin();
        saveCursor.run(cursor);
        db.exec('COMMIT');
      },
    },
    async close() {
      // Rows without a cursor move are real rows: keeping them is harmless, the cursor has not passed them.
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}
