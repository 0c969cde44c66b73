import fc from 'fast-check';
import { LOAD_FIELDS, LOAD_STATUSES, type LoadField } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';

// A page is its loads' JSON as load_json makes it when the page is read (migrations/0015). It must follow
// every write, by the importer or by any SQL writer, and carry the stamp the updatedAt rule gave the row;
// and the rule must see an update that changes nothing in that JSON as no change, and any other as one.
describe('a load\'s JSON in a page', () => {
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

  it('carries the row\'s own stamp after any sequence of writes, and keeps it exactly when the JSON stays the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
        await app.pool.query('DELETE FROM loads');
        for (const w of writes) {
          if (w.by === 'import') {
            await app.load('acme', [aLoad(w.loadNumber, { ...(w.originCity === undefined ? {} : { originCity: w.originCity }), ...(w.totalCost === undefined ? {} : { totalCost: w.totalCost }) })]);
            continue;
          }
          const before = await app.pool.query<{ stamp: Date; json: string }>('SELECT updated_at AS stamp, load_json(l) AS json FROM loads AS l WHERE load_number = $1::text', [w.loadNumber]);
          // The column is one of the fixed list above, never input.
          await app.pool.query(`UPDATE loads SET ${w.change.column} = $2 WHERE load_number = $1::text`, [w.loadNumber, w.change.value]);
          // Stamps are milliseconds: the next write lands in a later one, so a kept stamp is told from a new one.
          await nextDatabaseMillisecond(app.pool);
          const after = await app.pool.query<{ stamp: Date; json: string }>('SELECT updated_at AS stamp, load_json(l) AS json FROM loads AS l WHERE load_number = $1::text', [w.loadNumber]);
          // Same JSON (the same values, or only a stamp the rule refused) means the same stamp, and the other way round.
          if (before.rows[0]) expect(after.rows[0]!.stamp.getTime() === before.rows[0].stamp.getTime()).toBe(after.rows[0]!.json === before.rows[0].json);
        }
        const { rows } = await app.pool.query<{ json: string; stamp: Date }>('SELECT load_json(l) AS json, updated_at AS stamp FROM loads AS l');
        for (const row of rows) expect((JSON.parse(row.json) as { updatedAt: string }).updatedAt).toBe(row.stamp.toISOString());
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

  it('reads, for the previous release whose page statements name l.api_json, JSON.stringify of the Load in the contract\'s order', async () => {
    const input = aLoad('P-1', { originCity: 'Say "hi"', totalCost: '12.50' });
    await app.load('acme', [input]);
    const { rows } = await app.pool.query<{ previous: string; stamp: Date }>("SELECT l.api_json AS previous, l.updated_at AS stamp FROM loads AS l WHERE load_number = 'P-1'");
    expect(rows).toHaveLength(1);
    const given = input as Partial<Record<LoadField, string>>;
    const load = Object.fromEntries(LOAD_FIELDS.map((field) => [field, field === 'updatedAt' ? rows[0]!.stamp.toISOString() : (given[field] ?? null)]));
    expect(rows[0]!.previous).toBe(JSON.stringify(load));
  });
});
