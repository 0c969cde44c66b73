// Reads and tampers with what `loadfeed sync --duckdb` wrote, with plain SQL through @duckdb/node-api.
import { DuckDBInstance } from '@duckdb/node-api';
import type { Load } from '@loadfeed/spec';
import type { Tampering } from './copies.js';

const camelCase = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Opens the file (read-only unless `write`), runs `body`, and closes it, so that the CLI can open it next. */
export async function withDuckdb<T>(path: string, write: boolean, body: (run: (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(path, write ? {} : { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return await body(async (sql, values = []) => (await connection.runAndReadAll(sql, values as never)).getRowObjectsJson() as Record<string, unknown>[]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A DuckDB copy read back: TIMESTAMPTZ as SPEC's date-time, the rest as stored. */
export async function readDuckdb(path: string): Promise<{ loads: Load[]; cursor: string | undefined }> {
  return withDuckdb(path, false, async (run) => {
    const columns = await run(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = 'loads' ORDER BY ordinal_position`);
    const select = columns
      .map(({ name, type }) => (type === 'TIMESTAMP WITH TIME ZONE' ? `strftime(${name} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS ${name}` : String(name)))
      .join(', ');
    const rows = await run(`SELECT ${select} FROM loads ORDER BY load_number`);
    const loads = rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [camelCase(column), value])) as Load);
    const [cursor] = await run(`SELECT strftime(cursor AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS cursor FROM loadfeed_cursor`);
    return { loads, cursor: cursor?.cursor as string | undefined };
  });
}

export async function tamperDuckdb(path: string, { remove, alter, add }: Tampering): Promise<void> {
  await withDuckdb(path, true, async (run) => {
    for (const loadNumber of remove) await run('DELETE FROM loads WHERE load_number = $1', [loadNumber]);
    for (const { loadNumber, field, value } of alter) await run(`UPDATE loads SET ${snakeCase(field)} = $1 WHERE load_number = $2`, [value, loadNumber]);
    for (const load of add) {
      // A null cannot be bound without a type: it is written as NULL.
      const values: unknown[] = [];
      const placeholders = Object.values(load).map((value) => (value === null ? 'NULL' : `$${values.push(value)}`));
      await run(`INSERT INTO loads (${Object.keys(load).map(snakeCase).join(', ')}) VALUES (${placeholders.join(', ')})`, values);
    }
  });
}
