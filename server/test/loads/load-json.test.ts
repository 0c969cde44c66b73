import fc from 'fast-check';
import pg from 'pg';
import { LOAD_FIELDS, LOAD_STATUSES, type Load } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnOf, sqlTypeOf } from '../../src/loads/columns.js';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

// Pages are written as JSON by PostgreSQL (load_json, migrations/0009_feed-functions.sql) and must be byte
// for byte what JSON.stringify makes of the same Load, whatever its fields hold: every field in the
// contract's order, nulls present, date-times in UTC with milliseconds and Z, decimals as written.
describe('load_json: a load as JSON, written by PostgreSQL', () => {
  const database = useTestDatabase();
  let client: pg.Client;

  beforeAll(async () => {
    await migrate(database.url);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  // PostgreSQL's text cannot hold NUL, which the importer refuses.
  const text = fc
    .string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\b', '\f', '\n', '\r', '\t', '\u001f', '\u007f', '\u2028', '/'), fc.string({ unit: 'grapheme-ascii', maxLength: 1 }), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 40 })
    .filter((value) => !value.includes('\u0000'));
  const instant = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((date) => date.toISOString());
  const decimal = fc.tuple(fc.nat({ max: 99_999_999 }), fc.nat({ max: 99 })).map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`);
  const value = (field: (typeof LOAD_FIELDS)[number]) => {
    if (field === 'loadNumber') return text.filter((candidate) => candidate.length > 0);
    if (field === 'status') return fc.constantFrom(...LOAD_STATUSES);
    if (field === 'updatedAt') return instant;
    const type = sqlTypeOf(field);
    return fc.option(type === 'timestamptz' ? instant : type === 'numeric' ? decimal : text, { nil: null });
  };
  const anyLoad = fc.record(Object.fromEntries(LOAD_FIELDS.map((field) => [field, value(field)]))) as fc.Arbitrary<Load>;

  it('is JSON.stringify of the Load, for any text (quotes, backslashes, control characters, any Unicode), instant and decimal', async () => {
    await fc.assert(
      fc.asyncProperty(anyLoad, async (load) => {
        const row = Object.fromEntries(LOAD_FIELDS.map((field) => [columnOf(field), load[field]]));
        const { rows } = await client.query<{ json: string }>('SELECT load_json(l) AS json FROM jsonb_populate_record(NULL::loads, $1::jsonb) AS l', [JSON.stringify(row)]);
        const inOrder = Object.fromEntries(LOAD_FIELDS.map((field) => [field, load[field]]));
        expect(rows[0]!.json).toBe(JSON.stringify(inOrder));
      }),
      { numRuns: 200 },
    );
  });

  it('names every field of the contract, in its order (a field added to the contract and not here fails)', async () => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_attribute AS a WHERE a.attrelid = 'api_load'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    );
    expect(rows.map((row) => row.name)).toEqual(LOAD_FIELDS);
  });
});
