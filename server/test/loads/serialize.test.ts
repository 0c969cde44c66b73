import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

// Pages are written as JSON by PostgreSQL (src/loads/serialize.ts) and must be byte for byte what
// JSON.stringify makes of the same values, whatever a text field holds.
describe('JSON written by PostgreSQL', () => {
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

  it('escapes any text as JSON.stringify does (quotes, backslashes, control characters, any Unicode)', async () => {
    // PostgreSQL's text cannot hold NUL, which the importer refuses.
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\b', '\f', '\n', '\r', '\t', '\u001f', '\u007f', '\u2028', '/'), fc.string({ unit: 'grapheme-ascii', maxLength: 1 }), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 40 }).filter((value) => !value.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 20 }), async (values) => {
        const { rows } = await client.query<{ json: string }>('SELECT to_json(value)::text AS json FROM unnest($1::text[]) WITH ORDINALITY AS v(value, n) ORDER BY n', [values]);
        expect(rows.map((row) => row.json)).toEqual(values.map((value) => JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
  });
});
