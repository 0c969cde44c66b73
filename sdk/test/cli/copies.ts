// Reads what `loadfeed sync` wrote, to compare with what the API serves.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Load } from '@loadfeed/spec';

/** The part of better-sqlite3 these tests use (the package ships no types of its own). */
interface ReadOnlyDatabase {
  prepare(sql: string): { all(): unknown[]; get(): unknown };
  close(): void;
}
type DatabaseConstructor = new (path: string, options: { readonly: boolean }) => ReadOnlyDatabase;

const Database = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;

export const byLoadNumber = <T extends { loadNumber: string }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0));

export async function readNdjson(path: string): Promise<Load[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Load);
}

export async function readCursorFile(path: string): Promise<string> {
  return (JSON.parse(await readFile(path, 'utf8')) as { cursor: string }).cursor;
}

export function readSqlite(path: string): { loads: Load[]; cursor: string | undefined } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      loads: db.prepare('SELECT * FROM loads ORDER BY "loadNumber"').all() as Load[],
      cursor: (db.prepare('SELECT cursor FROM loadfeed_sync WHERE id = 1').get() as { cursor: string } | undefined)?.cursor,
    };
  } finally {
    db.close();
  }
}

/** The two places `loadfeed sync` writes to, named by a base path, and how to read each back. */
export interface DestinationCase {
  name: string;
  args(file: string): string[];
  read(file: string): Promise<{ loads: Load[]; cursor: string | undefined }>;
}

export const DESTINATIONS: DestinationCase[] = [
  {
    name: 'an NDJSON file',
    args: (file) => ['--out', `${file}.ndjson`],
    read: async (file) => ({ loads: await readNdjson(`${file}.ndjson`), cursor: await readCursorFile(`${file}.ndjson.state.json`) }),
  },
  {
    name: 'a SQLite table',
    args: (file) => ['--sqlite', `${file}.db`],
    read: async (file) => readSqlite(`${file}.db`),
  },
];

