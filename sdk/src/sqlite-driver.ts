// The SQLite the SQLite destination writes with: the runtime's own where it has one (`bun:sqlite` on Bun,
// `node:sqlite` on Node 22.13+ and Deno), else the optional package better-sqlite3 (Node 20). Each is
// seen through the part of better-sqlite3's API the destination uses, so that the destination, its table
// layout and its guarantees are the same whichever runs. A native addon is built only where nothing is
// built in.

export type SqliteValue = string | number | bigint | null | Uint8Array;

/** The part of better-sqlite3's API the destination uses; arrays among the parameters are spread, as there. */
export interface SqliteStatement {
  run(...parameters: unknown[]): unknown;
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
  /** The same statement, giving each row's first column instead of the row. */
  pluck(): SqliteStatement;
  /** The same statement, giving each row as an array of its columns in the query's order. */
  raw(): SqliteStatement;
}
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string): unknown;
  /** `body` as a function whose writes commit as one transaction, or roll back if it throws. */
  transaction<A extends unknown[]>(body: (...args: A) => void): (...args: A) => void;
  close(): void;
}
export type SqliteConstructor = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => SqliteDatabase;

/** What the built-in drivers' statements and databases offer (node:sqlite's and bun:sqlite's common part). */
interface BuiltInStatement {
  run(...parameters: SqliteValue[]): unknown;
  get(...parameters: SqliteValue[]): unknown;
  all(...parameters: SqliteValue[]): unknown[];
}
interface BuiltInDatabase {
  prepare(sql: string): BuiltInStatement;
  exec(sql: string): void;
  close(): void;
}


const spread = (parameters: unknown[]) => parameters.flat() as SqliteValue[];
/** A row as a plain object (node:sqlite's have no prototype), or its first column. */
const plainRow = (row: unknown) => (row === undefined ? undefined : { ...(row as object) });
const firstColumn = (row: unknown) => (row === undefined ? undefined : Object.values(row as object)[0]);
const columnValues = (row: unknown) => (row === undefined ? undefined : Object.values(row as object));

function statementOf(statement: BuiltInStatement, shape: (row: unknown) => unknown = plainRow): SqliteStatement {
  return {
    run: (...parameters) => statement.run(...spread(parameters)),
    get: (...parameters) => shape(statement.get(...spread(parameters)) ?? undefined),
    all: (...parameters) => statement.all(...spread(parameters)).map(shape),
    pluck: () => statementOf(statement, firstColumn),
    raw: () => statementOf(statement, columnValues),
  };
}

/** better-sqlite3's default: a writer waits this long for another's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** A built-in driver's database as the destination sees it; transactions are BEGIN IMMEDIATE … COMMIT. */
function databaseOf(db: BuiltInDatabase): SqliteDatabase {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return {
    prepare: (sql) => statementOf(db.prepare(sql)),
    exec: (sql) => db.exec(sql),
    pragma: (source) => db.exec(`PRAGMA ${source}`),
    transaction:
      (body) =>
      (...args) => {
        db.exec('BEGIN IMMEDIATE');
        try {
          body(...args);
          db.exec('COMMIT');
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      },
    close: () => db.close(),
  };
}

/** node:sqlite's code for every SQLite error (better-sqlite3 and bun:sqlite give SQLite's own, `SQLITE_BUSY`). */
export const NODE_SQLITE_ERROR = 'ERR_SQLITE_ERROR';
export { resultCodeName as sqliteCodeName } from './sqlite-result-codes.js';

/** An import that a bundler or TypeScript does not follow (the module may not exist in this runtime). */
const importNamed = (specifier: string): Promise<unknown> => import(specifier);

async function bunSqlite(): Promise<SqliteConstructor> {
  const { Database } = (await importNamed('bun:sqlite')) as { Database: new (path: string, options?: { readonly?: boolean; create?: boolean }) => BuiltInDatabase };
  return class {
    constructor(path: string, options: { readonly?: boolean } = {}) {
      return databaseOf(options.readonly ? new Database(path, { readonly: true, create: false }) : new Database(path));
    }
  } as unknown as SqliteConstructor;
}

/** node:sqlite, with Node's ExperimentalWarning about it kept off the user's terminal; undefined where there is none. */
async function nodeSqlite(): Promise<SqliteConstructor | undefined> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let module: { DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => BuiltInDatabase };
  try {
    module = (await importNamed('node:sqlite')) as typeof module;
  } catch {
    // Node before 22.13 (without --experimental-sqlite): no built-in SQLite.
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  const { DatabaseSync } = module;
  return class {
    constructor(path: string, options: { readonly?: boolean } = {}) {
      return databaseOf(new DatabaseSync(path, options.readonly ? { readOnly: true } : {}));
    }
  } as unknown as SqliteConstructor;
}

/**
 * The SQLite of this runtime: bun:sqlite on Bun, node:sqlite where there is one, else `fallback` (the
 * destination loads the optional better-sqlite3 there, with its own message when it is missing).
 */
export async function loadSqlite(fallback: () => Promise<SqliteConstructor>): Promise<SqliteConstructor> {
  if ((process.versions as { bun?: string }).bun !== undefined) return bunSqlite();
  return (await nodeSqlite()) ?? fallback();
}
