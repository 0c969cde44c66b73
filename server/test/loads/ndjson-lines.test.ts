// Reading an import's lines: bounded by the longest line allowed, strict about UTF-8, the same lines
// however the input arrives in chunks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ImportLine } from '../../src/loads/import.js';
import { MAX_LINE_BYTES, ndjsonLines } from '../../src/loads/ndjson-lines.js';

async function linesOf(chunks: Array<Buffer | string>, maxLineBytes?: number): Promise<ImportLine[]> {
  const read: ImportLine[] = [];
  for await (const line of ndjsonLines((async function* () { yield* chunks; })(), maxLineBytes)) read.push(line);
  return read;
}

describe('ndjsonLines', () => {
  it('names a line over the bound once, with its length, without gathering it, and reads the lines after it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    // 40 chunks of 64 KiB (2.5 MiB) on one line, with a bound of 1 MiB.
    const chunks: Buffer[] = [Buffer.from('{"a":1}\n"'), ...Array.from({ length: 40 }, () => chunk), Buffer.from('"\n{"b":2}\n')];
    expect(await linesOf(chunks, 1024 * 1024)).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, problem: expect.stringMatching(/^line too long: 2621442 bytes, at most 1048576 /) },
      { line: 3, value: { b: 2 } },
    ]);
  });

  it('reads a line of exactly the bound, and refuses one byte more', async () => {
    const fits = `"${'x'.repeat(98)}"`;
    expect(await linesOf([`${fits}\n${fits} \n`], 100)).toEqual([
      { line: 1, value: 'x'.repeat(98) },
      { line: 2, problem: expect.stringMatching(/^line too long: 101 bytes, at most 100 /) },
    ]);
    expect(MAX_LINE_BYTES).toBeGreaterThan(40_000);
  });

  it('names a line that is not UTF-8 instead of replacing its bytes', async () => {
    const bad = Buffer.concat([Buffer.from('{"originCity":"U'), Buffer.from([0xff, 0xfe]), Buffer.from('1"}\n')]);
    expect(await linesOf([Buffer.from('{"a":"é"}\n'), bad, Buffer.from('{"c":3}')])).toEqual([
      { line: 1, value: { a: 'é' } },
      { line: 2, problem: expect.stringMatching(/^not UTF-8/) },
      { line: 3, value: { c: 3 } },
    ]);
  });

  it('drops a byte order mark on the first line and a carriage return at each line end, and skips blank lines', async () => {
    expect(await linesOf(['\uFEFF{"a":1}\r\n\r\n  \n{"b":2}\r\n'])).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: { b: 2 } },
    ]);
  });

  it('reads the same lines however the bytes are cut into chunks, even inside a character', async () => {
    const text = '{"a":"𝔏é"}\n\n{"b":[1,2]}\r\nnot json\n"\u00e9\u4e2d"\n';
    const bytes = Buffer.from(text);
    const whole = await linesOf([bytes]);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const chunks = points.slice(1).map((end, index) => bytes.subarray(points[index], end));
        expect(await linesOf(chunks)).toEqual(whole);
      }),
    );
    expect(whole).toHaveLength(4);
  });
});
