// The importer's SQL is written out as SQL (src/loads/import-sql.ts); each of its column lists names
// every writable field of the contract, in the field table's order (src/loads/columns.ts), so that a
// field added to both cannot be left out of an import, and "unchanged" compares decimals as shown.
import { describe, expect, it } from 'vitest';
import { columnOf, sqlTypeOf, WRITABLE_LOAD_FIELDS, type WritableLoadField } from '../../src/loads/columns.js';
import { COPY_SQL, STAGING_SQL, UPSERT_SQL } from '../../src/loads/import-sql.js';

const COLUMNS = WRITABLE_LOAD_FIELDS.map(columnOf);
const UPDATED = WRITABLE_LOAD_FIELDS.filter((field) => field !== 'loadNumber');
const stagedTypeOf = (field: WritableLoadField): string => (sqlTypeOf(field) === 'timestamptz' ? 'bigint' : sqlTypeOf(field));

/** The comma-separated items between `start` (its end) and the next `end` after it, squeezed. */
function listBetween(sql: string, start: string, end: string): string[] {
  const from = sql.indexOf(start);
  expect(from, `${start} in the statement`).toBeGreaterThanOrEqual(0);
  const to = sql.indexOf(end, from + start.length);
  return sql
    .slice(from + start.length, to)
    .split(',')
    .map((item) => item.replace(/\s+/g, ' ').trim());
}

describe("the importer's SQL", () => {
  it('stages every writable field, with its type (a date-time as milliseconds since 1970), after the line', () => {
    expect(listBetween(STAGING_SQL, 'import_staging (', ') ON COMMIT DROP')).toEqual([
      'line bigint NOT NULL',
      ...WRITABLE_LOAD_FIELDS.map((field) => `${columnOf(field)} ${stagedTypeOf(field)}${field === 'loadNumber' ? ' NOT NULL' : ''}`),
    ]);
    expect(listBetween(COPY_SQL, 'import_staging (', ') FROM STDIN')).toEqual(['line', ...COLUMNS]);
  });

  it('inserts every staged field, and on a conflict sets every field but the key', () => {
    expect(listBetween(UPSERT_SQL, 'INSERT INTO loads AS l (', ')')).toEqual(['customer_id', ...COLUMNS]);
    expect(listBetween(UPSERT_SQL, 'SELECT $1::bigint,', 'FROM import_staging')).toEqual(
      WRITABLE_LOAD_FIELDS.map((field) => {
        const staged = `s.${columnOf(field)}`;
        return stagedTypeOf(field) === 'bigint' ? `to_timestamp(${staged} / 1000) + (${staged} % 1000) * interval '1 millisecond'` : staged;
      }),
    );
    expect(listBetween(UPSERT_SQL, 'DO UPDATE\n     SET', '\n   WHERE')).toEqual(UPDATED.map((field) => `${columnOf(field)} = excluded.${columnOf(field)}`));
  });

  it('compares every updated field as the API shows it: decimals as their text', () => {
    const shown = (table: string) => UPDATED.map((field) => `${table}.${columnOf(field)}${sqlTypeOf(field) === 'numeric' ? '::text' : ''}`);
    expect(listBetween(UPSERT_SQL, 'WHERE (', ')\n         IS DISTINCT FROM')).toEqual(shown('l'));
    expect(listBetween(UPSERT_SQL, 'IS DISTINCT FROM\n         (', ')\n  RETURNING')).toEqual(shown('excluded'));
  });
});
