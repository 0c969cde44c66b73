// The import's statements (src/loads/import-statements.ts) are written out as SQL; the Load's writable
// fields (columns.ts) are where the contract names them. Here the two are held together on a database:
// the staging table has every field's column with the loads table's type, in the order COPY rows are
// written, and the upsert writes every field and counts a change of any one of them as a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnOf, sqlTypeOf, WRITABLE_LOAD_FIELDS, type WritableLoadField } from '../../src/loads/columns.js';
import { STAGING_SQL } from '../../src/loads/import-sql.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

/** A valid value of the field other than aLoad's. */
function anotherValueOf(field: WritableLoadField): string {
  if (field === 'status') return 'Covered';
  if (field.endsWith('State')) return 'TX';
  if (field.endsWith('Time')) return '09:30';
  if (sqlTypeOf(field) === 'timestamptz') return '2026-05-01T10:00:00.123Z';
  if (sqlTypeOf(field) === 'numeric') return '12.50';
  return `changed ${field}`;
}

describe('the import statements', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stage every writable field in its loads column\'s type (a date-time as milliseconds since 1970), in the order COPY rows are written', async () => {
    const client = await app.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(STAGING_SQL);
      const columnsOf = async (table: string) =>
        (await client.query<{ column: string }>(
          `SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) AS column
             FROM pg_attribute AS a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
          [table],
        )).rows.map((row) => row.column);
      const loadsColumns = new Map((await columnsOf('loads')).map((column) => [column.slice(0, column.indexOf(' ')), column]));
      const staged = (column: string) => column.replace(/ timestamp with time zone$/, ' bigint');
      expect(await columnsOf('pg_temp.import_staging')).toEqual(['line bigint', ...WRITABLE_LOAD_FIELDS.map((field) => staged(loadsColumns.get(columnOf(field))!))]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('writes each field, and counts a change of any one of them as a change', async () => {
    for (const field of WRITABLE_LOAD_FIELDS.filter((each) => each !== 'loadNumber')) {
      const loadNumber = `F-${field}`;
      expect(await app.load('acme', [aLoad(loadNumber)])).toEqual({ inserted: 1, changed: 0, unchanged: 0 });
      const changed = aLoad(loadNumber, { [field]: anotherValueOf(field) });
      expect(await app.load('acme', [changed])).toEqual({ inserted: 0, changed: 1, unchanged: 0 });
      expect(await app.load('acme', [changed])).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
      const { rows } = await app.pool.query<{ json: string }>('SELECT load_json(l) AS json FROM loads AS l WHERE l.load_number = $1::text', [loadNumber]);
      expect(JSON.parse(rows[0]!.json)[field]).toBe(anotherValueOf(field));
    }
  });
});
