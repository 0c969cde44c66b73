// The typed columns of a SQL copy follow the contract: every Load field once, a date-time field as
// timestamptz, a decimal-string field (the document's decimal pattern) as numeric, NOT NULL where the
// contract never gives null.
import { DATE_TIME_LOAD_FIELDS, LOAD_FIELDS, NULLABLE_LOAD_FIELDS } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { describe, expect, it } from 'vitest';
import { DECIMAL_LOAD_FIELDS, LOAD_COLUMNS } from '../../src/destinations.js';

describe('the columns of a SQL copy', () => {
  it('are the decimal fields the document gives the decimal pattern, and no other', () => {
    const properties = openApiDocument.components.schemas.Load!.properties!;
    const decimals = Object.entries(properties)
      .filter(([, schema]) => schema.pattern === '^-?[0-9]+(\\.[0-9]+)?$')
      .map(([field]) => field);
    expect(decimals).toEqual([...DECIMAL_LOAD_FIELDS]);
  });

  it('hold every Load field once, typed from the contract', () => {
    expect(LOAD_COLUMNS.map((column) => column.field)).toEqual([...LOAD_FIELDS]);
    expect(new Set(LOAD_COLUMNS.map((column) => column.column)).size).toBe(LOAD_FIELDS.length);
    for (const column of LOAD_COLUMNS) {
      expect(column.type).toBe(DATE_TIME_LOAD_FIELDS.includes(column.field) ? 'timestamptz' : DECIMAL_LOAD_FIELDS.includes(column.field) ? 'numeric' : 'text');
      expect(column.notNull).toBe(!NULLABLE_LOAD_FIELDS.includes(column.field));
    }
  });
});
