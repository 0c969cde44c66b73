// SQLite's primary result codes, for node:sqlite's errors: better-sqlite3 and bun:sqlite give `code:
// 'SQLITE_BUSY'`, node:sqlite gives `code: 'ERR_SQLITE_ERROR'` with the number in `errcode` (Node) or
// only the message (Deno), so the destination's error line names the code the same way under each.

/** The code for each primary result code, and the text sqlite3_errstr() gives for it. */
const PRIMARY: readonly (readonly [number, string, string])[] = [
  [1, 'SQLITE_ERROR', 'SQL logic error'],
  [3, 'SQLITE_PERM', 'access permission denied'],
  [4, 'SQLITE_ABORT', 'query aborted'],
  [5, 'SQLITE_BUSY', 'database is locked'],
  [6, 'SQLITE_LOCKED', 'database table is locked'],
  [7, 'SQLITE_NOMEM', 'out of memory'],
  [8, 'SQLITE_READONLY', 'attempt to write a readonly database'],
  [9, 'SQLITE_INTERRUPT', 'interrupted'],
  [10, 'SQLITE_IOERR', 'disk I/O error'],
  [11, 'SQLITE_CORRUPT', 'database disk image is malformed'],
  [13, 'SQLITE_FULL', 'database or disk is full'],
  [14, 'SQLITE_CANTOPEN', 'unable to open database file'],
  [15, 'SQLITE_PROTOCOL', 'locking protocol'],
  [17, 'SQLITE_SCHEMA', 'database schema has changed'],
  [18, 'SQLITE_TOOBIG', 'string or blob too big'],
  [19, 'SQLITE_CONSTRAINT', 'constraint failed'],
  [20, 'SQLITE_MISMATCH', 'datatype mismatch'],
  [21, 'SQLITE_MISUSE', 'bad parameter or other API misuse'],
  [22, 'SQLITE_NOLFS', 'large file support is disabled'],
  [23, 'SQLITE_AUTH', 'authorization denied'],
  [25, 'SQLITE_RANGE', 'column index out of range'],
  [26, 'SQLITE_NOTADB', 'file is not a database'],
];

/**
 * The name of a node:sqlite error's result code: from its (extended) `errcode` where Node gives one, else
 * from a message that is exactly the code's own text (Deno); undefined when neither says.
 */
export function resultCodeName(error: { errcode?: number; message: string }): string | undefined {
  if (typeof error.errcode === 'number') return PRIMARY.find(([code]) => code === (error.errcode! & 0xff))?.[1];
  return PRIMARY.find(([, , text]) => text === error.message)?.[1];
}
