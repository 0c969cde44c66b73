// The lines of an NDJSON input, read as bytes so that memory is bounded by the longest line allowed, not
// by the input: a line longer than that is skipped to its end unread and named, never gathered into a
// string (a 1 GB line once ended in `RangeError: Invalid string length`). Each line is decoded as strict
// UTF-8, so a byte sequence that is not UTF-8 is an error naming its line rather than U+FFFD stored in
// its place.
import type { ImportLine } from './import.js';

/**
 * The longest line read, in bytes. A Load of the largest allowed values is ~34 KB even with every
 * character written as a `\uXXXX` escape (22 fields of at most 255 characters), a usual one ~500 bytes;
 * a line up to this bound is still read, so that a field far too long is named as such, with its field.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = '\uFEFF';

/** One line's bytes, gathered from the chunks it spans, or only counted once it is too long. */
class LineBuffer {
  private parts: Buffer[] = [];
  length = 0;

  add(part: Buffer, limit: number): void {
    this.length += part.length;
    if (this.length <= limit) this.parts.push(part);
    else this.parts = [];
  }

  take(): Buffer {
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.length = 0;
    return bytes;
  }
}

/** Each non-blank line of `source` as JSON, or the reason it is not: too long, not UTF-8, not JSON. */
export async function* ndjsonLines(source: AsyncIterable<Buffer | string>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<ImportLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const pending = new LineBuffer();
  let line = 0;

  const finish = (): ImportLine | undefined => {
    line += 1;
    const length = pending.length;
    if (length > maxLineBytes) {
      pending.take();
      return { line, problem: `line too long: ${length} bytes, at most ${maxLineBytes} (a Load is a few hundred bytes; no valid one passes 40 kB)` };
    }
    let bytes = pending.take();
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { line, problem: 'not UTF-8: the line holds bytes that are no UTF-8 text (save the file as UTF-8)' };
    }
    // Editors on Windows start UTF-8 files with a byte order mark, which JSON does not allow.
    if (line === 1 && text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    if (text.trim() === '') return undefined;
    try {
      return { line, value: JSON.parse(text) as unknown };
    } catch (error) {
      return { line, problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
    }
  };

  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE, start); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
      pending.add(bytes.subarray(start, end), maxLineBytes);
      const read = finish();
      if (read) yield read;
      start = end + 1;
    }
    if (start < bytes.length) pending.add(bytes.subarray(start), maxLineBytes);
  }
  if (pending.length > 0) {
    const read = finish();
    if (read) yield read;
  }
}
