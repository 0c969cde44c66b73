// An import is written a batch at a time (src/loads/import.ts), yet its outcome is the input's, not the
// batches': whatever the batch size, the same input over the same stored loads ends with the same rows,
// the same summary and the same problems as one batch holding all of it — repeats found across batches
// (the first line of a loadNumber wins when bad lines are skipped; the import is refused otherwise), bad
// lines anywhere, and nothing written by an import that is refused.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadInput } from '@loadfeed/spec';
import { ImportRejectedError, importLoadLines, type ImportOutcome, type NumberedRow } from '../../src/loads/import.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

/** A line of the input: a load from a small set of loadNumbers (so that repeats are common), or a bad row. */
const line = fc.oneof(
  { weight: 8, arbitrary: fc.record({ loadNumber: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'), poNumber: fc.constantFrom('P1', 'P2', null) }).map(({ loadNumber, poNumber }) => aLoad(loadNumber, { poNumber })) },
  { weight: 1, arbitrary: fc.constant({ loadNumber: 'BAD', status: 'Lost' } as unknown as LoadInput) },
);
const stored = fc.array(fc.record({ loadNumber: fc.constantFrom('A', 'C', 'E'), poNumber: fc.constantFrom('P1', 'P2') }), { maxLength: 3 });

type Ending = { outcome: ImportOutcome } | { refused: ImportRejectedError['problems'] };

describe('an import written in batches', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
  });
  afterAll(async () => {
    await app?.close();
  });

  const rowsOf = async (customerCode: string) =>
    (await app.pool.query<{ load_number: string; po_number: string | null }>(
      'SELECT l.load_number, l.po_number FROM loads AS l JOIN customers AS c ON c.id = l.customer_id WHERE c.code = $1::text ORDER BY l.load_number',
      [customerCode],
    )).rows;

  async function importInto(customerCode: string, rows: NumberedRow[], skipInvalid: boolean, batchCharacters?: number): Promise<Ending> {
    try {
      return { outcome: await importLoadLines(app.pool, customerCode, rows, { skipInvalid, batchCharacters }) };
    } catch (error) {
      if (!(error instanceof ImportRejectedError)) throw error;
      return { refused: error.problems };
    }
  }

  it('ends as one batch of the whole input would, whatever the batch size', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        stored,
        fc.array(line, { minLength: 1, maxLength: 24 }),
        fc.boolean(),
        // A loaded row is ~300 characters of COPY text: batches of one row to a few.
        fc.integer({ min: 1, max: 1_500 }),
        async (before, input, skipInvalid, batchCharacters) => {
          round += 1;
          const [batched, whole] = [`batched-${round}`, `whole-${round}`];
          for (const code of [batched, whole]) {
            await app.customer(code);
            if (before.length > 0) await app.load(code, [...new Map(before.map((load) => [load.loadNumber, aLoad(load.loadNumber, { poNumber: load.poNumber })])).values()]);
          }
          const rows = input.map((value, index) => ({ line: index + 1, value }));
          const inBatches = await importInto(batched, rows, skipInvalid, batchCharacters);
          const inOne = await importInto(whole, rows, skipInvalid);
          expect(inBatches).toEqual(inOne);
          expect(await rowsOf(batched)).toEqual(await rowsOf(whole));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the first line of a loadNumber repeated in a later batch when bad lines are skipped, and refuses it otherwise', async () => {
    await app.customer('repeats');
    const rows = [aLoad('R-1', { poNumber: 'first' }), aLoad('R-2'), aLoad('R-3'), aLoad('R-1', { poNumber: 'again' })].map((value, index) => ({ line: index + 1, value }));
    const repeat = { line: 4, message: 'loadNumber "R-1" appears already on line 1' };
    await expect(importLoadLines(app.pool, 'repeats', rows, { batchCharacters: 1 })).rejects.toMatchObject({ problems: [repeat] });
    expect(await rowsOf('repeats')).toEqual([]);
    const { summary, problems } = await importLoadLines(app.pool, 'repeats', rows, { skipInvalid: true, batchCharacters: 1 });
    expect(problems).toEqual([repeat]);
    expect(summary).toEqual({ inserted: 3, changed: 0, unchanged: 0 });
    expect(await rowsOf('repeats')).toEqual([
      { load_number: 'R-1', po_number: 'first' },
      { load_number: 'R-2', po_number: null },
      { load_number: 'R-3', po_number: null },
    ]);
  });
});
