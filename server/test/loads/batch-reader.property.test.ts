// The importer reads its input ahead of PostgreSQL and hands over, as each batch, whatever it has read by
// the moment PostgreSQL is ready (src/loads/import-batches.ts). Whenever batches are taken, every good row
// goes out once, in the input's order; each batch says rightly whether a loadNumber appears twice in it
// (the importer cannot upsert such a batch in one statement); no batch grows past its bound; a failing
// input fails the import; and an import that stops early stops reading.
import { setImmediate as nextTurn } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoadInput } from '@loadfeed/spec';
import { BatchReader, type Batch } from '../../src/loads/import-batches.js';
import type { ImportLine, ImportProblem } from '../../src/loads/import.js';
import { aLoad } from '../support/app.js';

/** A line of the input: a load of a few loadNumbers (repeats are common), a bad row, or an unreadable line. */
const line = fc.oneof(
  { weight: 8, arbitrary: fc.record({ loadNumber: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'), poNumber: fc.string({ maxLength: 40 }) }).map(({ loadNumber, poNumber }) => ({ value: aLoad(loadNumber, { poNumber: poNumber || null }) })) },
  { weight: 1, arbitrary: fc.constant({ value: { loadNumber: 'BAD', status: 'Lost' } as unknown as LoadInput }) },
  { weight: 1, arbitrary: fc.constant({ problem: 'not JSON' }) },
);

/** The input as it arrives: each line after a random number of event-loop turns (zero for most). */
async function* arriving(values: readonly ({ value: LoadInput } | { problem: string })[], turns: readonly number[]): AsyncGenerator<ImportLine> {
  for (const [index, value] of values.entries()) {
    for (let turn = 0; turn < turns[index % turns.length]!; turn += 1) await nextTurn();
    yield { line: index + 1, ...value };
  }
}

/** The rows of a batch's COPY text, each as its line number and loadNumber (the first two columns). */
function rowsOf(batch: Batch): { line: number; loadNumber: string }[] {
  const text = Buffer.concat(batch.chunks).toString();
  return text
    .split('\n')
    .filter((row) => row !== '')
    .map((row) => {
      const [line, loadNumber] = row.split('\t');
      return { line: Number(line), loadNumber: loadNumber! };
    });
}

describe("the importer's read-ahead", () => {
  it('hands over every good row once, in order, in batches within their bound, whenever they are taken', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.array(fc.constantFrom(0, 0, 0, 1, 2), { minLength: 1, maxLength: 8 }),
        // Turns the taker waits before each take: PostgreSQL writing the batch before.
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
        // A row is ~150 characters of COPY text: chunks of one row to a few, batches of one chunk to many.
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 10 }),
        async (values, arrivalTurns, takeTurns, chunkCharacters, chunksToABatch) => {
          const problems: ImportProblem[] = [];
          const batchCharacters = chunkCharacters * chunksToABatch;
          const reader = new BatchReader(arriving(values, arrivalTurns), problems, batchCharacters, chunkCharacters);
          const batches: Batch[] = [];
          for (let batch = await reader.next(); batch; batch = await reader.next()) {
            batches.push(batch);
            for (let turn = 0; turn < takeTurns[batches.length % takeTurns.length]!; turn += 1) await nextTurn();
          }
          reader.close();

          const good = values.flatMap((value, index) => ('value' in value && value.value.loadNumber !== 'BAD' ? [{ line: index + 1, loadNumber: value.value.loadNumber }] : []));
          expect(batches.flatMap(rowsOf)).toEqual(good);
          expect(problems.map((problem) => problem.line)).toEqual(values.flatMap((value, index) => ('value' in value && value.value.loadNumber !== 'BAD' ? [] : [index + 1])));
          const longestRow = Math.max(0, ...batches.flatMap((batch) => Buffer.concat(batch.chunks).toString().split('\n').map((row) => row.length + 1)));
          for (const batch of batches) {
            const loadNumbers = rowsOf(batch).map((row) => row.loadNumber);
            expect(batch.repeats).toBe(new Set(loadNumbers).size < loadNumbers.length);
            expect(batch.chunks.length).toBeGreaterThan(0);
            expect(Buffer.concat(batch.chunks).toString().length).toBeLessThan(2 * batchCharacters + longestRow);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes what has been read when the taker comes, not a batch of a size fixed in advance', async () => {
    // ~300 characters of COPY text a row: ~220 rows to a chunk of 64 KB, ~9 chunks in all.
    const values = Array.from({ length: 2_000 }, (_, index) => ({ value: aLoad(`L-${index}`, { originCity: 'x'.repeat(200) }) }));
    // Lines arrive one event-loop turn apart; the taker comes every few turns.
    const reader = new BatchReader(arriving(values, [1]), [], 4 * 1024 * 1024);
    const sizes: number[] = [];
    const characters: number[] = [];
    for (let batch = await reader.next(); batch; batch = await reader.next()) {
      sizes.push(rowsOf(batch).length);
      characters.push(Buffer.concat(batch.chunks).length);
      for (let turn = 0; turn < 5; turn += 1) await nextTurn();
    }
    reader.close();
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(2_000);
    expect(sizes.length).toBeGreaterThan(1);
    // The taker waits from the start, so the first batch is the first chunk, not a share of the bound.
    expect(characters[0]).toBeLessThan(2 * 64 * 1024);
  });

  it('fails the taker with the input\'s own error', async () => {
    async function* failing(): AsyncGenerator<ImportLine> {
      yield { line: 1, value: aLoad('A') };
      throw new Error('cannot read the input: gone');
    }
    const reader = new BatchReader(failing(), [], 1_000);
    await expect(async () => {
      while (await reader.next());
    }).rejects.toThrow('cannot read the input: gone');
    reader.close();
  });

  it('stops reading the input when closed before its end', async () => {
    let read = 0;
    let released = false;
    async function* endless(): AsyncGenerator<ImportLine> {
      try {
        for (;;) {
          read += 1;
          yield { line: read, value: aLoad(`L-${read}`) };
        }
      } finally {
        released = true;
      }
    }
    const reader = new BatchReader(endless(), [], 2_000);
    expect(await reader.next()).toBeDefined();
    reader.close();
    // The reader lets go at the next line the input gives.
    for (let turn = 0; turn < 10 && !released; turn += 1) await nextTurn();
    expect(released).toBe(true);
    const readWhenClosed = read;
    await nextTurn();
    expect(read).toBe(readWhenClosed);
    // It never read more than a batch ahead of the taker (two bounds' worth and a chunk).
    expect(read).toBeLessThan(100);
  });
});
