// A connection of the runtime's own SQLite (bun:sqlite on Bun, node:sqlite elsewhere), apart from the
// destination's: what a customer's other program, or a person at the sqlite3 prompt, does to the file.
export async function openConnection(path) {
  if (process.versions.bun !== undefined) {
    const { Database } = await import('bun:sqlite');
    const db = new Database(path);
    return { exec: (sql) => db.exec(sql), all: (sql) => db.query(sql).all(), close: () => db.close() };
  }
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(path);
  return { exec: (sql) => db.exec(sql), all: (sql) => db.prepare(sql).all().map((row) => ({ ...row })), close: () => db.close() };
}
