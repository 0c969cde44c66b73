// Reads the sync-to-sqlite example's database (better-sqlite3 ships no types: this is the part used here).
import { createRequire } from 'node:module';

interface ReadOnlyDatabase {
  prepare(sql: string): { all(): Record<string, unknown>[] };
  close(): void;
}
type DatabaseConstructor = new (path: string, options: { readonly: boolean }) => ReadOnlyDatabase;

const Database = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;

export function query(path: string, sql: string): Record<string, unknown>[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}
