import fc from 'fast-check';
import { LOAD_STATUSES } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

// Pages are the loads' stored JSON (api_json, migrations/0010_stored-load-json.sql). It must follow every
// write, by the importer or by any SQL writer, and carry the stamp the updatedAt rule gave the row; and
// the rule must still see an update that changes nothing as no change.
describe('api_json: each load\'s JSON, stored with its row', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  const loadNumber = fc.constantFrom('S-1', 'S-2');
  // Quotes and backslashes, which JSON escapes; any text at all is load-json.test.ts's concern.
  const text = fc.stringMatching(/^[A-Za-z"\\,.]{1,12}$/);
  const instant = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  /** A column an SQL writer may set, and values for it (the current value again among them, often). */
  const sqlWrite = fc.oneof(
    fc.record({ column: fc.constant('origin_city'), value: fc.option(text, { nil: null }) }),
    fc.record({ column: fc.constant('status'), value: fc.constantFrom(...LOAD_STATUSES) }),
    fc.record({ column: fc.constant('miles'), value: fc.option(fc.constantFrom('10.5', '10.50', '7'), { nil: null }) }),
    fc.record({ column: fc.constant('tendered_date'), value: fc.option(instant, { nil: null }) }),
    fc.record({ column: fc.constant('updated_at'), value: instant }),
  );
  const write = fc.oneof(
    fc.record({ by: fc.constant('import' as const), loadNumber, originCity: fc.option(text, { nil: undefined }), totalCost: fc.option(fc.constantFrom('1.00', '1', '2.5'), { nil: undefined }) }),
    fc.record({ by: fc.constant('sql' as const), loadNumber, change: sqlWrite }),
  );

  it('equals load_json of the row after any sequence of writes, with the row\'s own stamp, and a no-op update keeps the stamp', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
        await app.pool.query('DELETE FROM loads');
        for (const w of writes) {
          if (w.by === 'import') {
            await app.load('acme', [aLoad(w.loadNumber, { ...(w.originCity === undefined ? {} : { originCity: w.originCity }), ...(w.totalCost === undefined ? {} : { totalCost: w.totalCost }) })]);
            continue;
          }
          const before = await app.pool.query<{ stamp: Date; json: string }>('SELECT updated_at AS stamp, api_json AS json FROM loads WHERE load_number = $1::text', [w.loadNumber]);
          // The column is one of the fixed list above, never input.
          await app.pool.query(`UPDATE loads SET ${w.change.column} = $2 WHERE load_number = $1::text`, [w.loadNumber, w.change.value]);
          // Stamps are milliseconds: the next write lands in a later one, so a kept stamp is told from a new one.
          await new Promise((resolve) => setTimeout(resolve, 2));
          const after = await app.pool.query<{ stamp: Date; json: string }>('SELECT updated_at AS stamp, api_json AS json FROM loads WHERE load_number = $1::text', [w.loadNumber]);
          // Same JSON (the same values, or only a stamp the rule refused) means the same stamp, and the other way round.
          if (before.rows[0]) expect(after.rows[0]!.stamp.getTime() === before.rows[0].stamp.getTime()).toBe(after.rows[0]!.json === before.rows[0].json);
        }
        const { rows } = await app.pool.query<{ json: string; expected: string; stamp: Date }>('SELECT api_json AS json, load_json(l) AS expected, updated_at AS stamp FROM loads AS l');
        for (const row of rows) {
          expect(row.json).toBe(row.expected);
          expect((JSON.parse(row.json) as { updatedAt: string }).updatedAt).toBe(row.stamp.toISOString());
        }
      }),
      {
        numRuns: 40,
        // Decimals rewritten with other trailing zeros: equal numbers, other JSON.
        examples: [[[
          { by: 'import', loadNumber: 'S-1', originCity: undefined, totalCost: '1.00' },
          { by: 'sql', loadNumber: 'S-1', change: { column: 'miles', value: '10.5' } },
          { by: 'sql', loadNumber: 'S-1', change: { column: 'miles', value: '10.50' } },
        ]]],
      },
    );
  });

  it('cannot be written by anyone: the database refuses it', async () => {
    await app.load('acme', [aLoad('W-1')]);
    await expect(app.pool.query(`UPDATE loads SET api_json = '{}' WHERE load_number = 'W-1'`)).rejects.toMatchObject({ code: '428C9' });
  });
});
