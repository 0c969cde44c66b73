// The importer's input read ahead of PostgreSQL: every line is checked as it is read and its row written
// as COPY text, gathered into the next batch while the batch before is copied and upserted. A batch is
// whatever has been gathered when PostgreSQL is ready for it (at least one chunk, at most
// `batchCharacters`), so that PostgreSQL, the slower of the two on a row, never waits for a batch of a
// size fixed in advance: batches of a fixed or doubling size left it idle for ~0.2 s of an import of
// 100,000 loads on two cores while Node, still cold, read batches larger than the one being written.
// Reading stops while a whole batch waits (two batches in memory at most).
import { copyRow } from './copy-text.js';
import type { ImportLine, ImportProblem } from './import.js';
import { checkLoadInput } from './load-input.js';

/** How much COPY text is gathered into one chunk of bytes: few messages, little memory. */
const COPY_CHUNK_CHARACTERS = 64 * 1024;

/**
 * The good rows of one batch as COPY text, in chunks of UTF-8 bytes, and whether a loadNumber appears twice
 * among them. Bytes rather than the text they were built as: text built by appending is a tree of its
 * pieces on V8's heap, several times its length, and a batch waits while the one before it is written.
 */
export interface Batch {
  chunks: Buffer[];
  repeats: boolean;
}

/**
 * Reads `lines` from the moment it is made (the first batch is read while the transaction is set up);
 * each bad line's problems go to `problems` as they are found. `next()` takes the rows gathered so far.
 */
export class BatchReader {
  private chunks: Buffer[] = [];
  private gathered = 0;
  // The gathered rows' loadNumbers: as many as a batch holds, so memory stays bounded by the batch.
  private readonly loadNumbers = new Set<string>();
  private repeats = false;
  private finished = false;
  private stopped = false;
  private failure: { error: unknown } | undefined;
  private wakeTaker: (() => void) | undefined;
  private wakeReader: (() => void) | undefined;
  private readonly chunkCharacters: number;

  /**
   * `batchCharacters` bounds a batch (it is taken at most one chunk past it); `chunkCharacters`, how much
   * COPY text becomes one chunk of bytes, ready to be taken (tests make both small).
   */
  constructor(
    lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
    private readonly problems: ImportProblem[],
    private readonly batchCharacters: number,
    chunkCharacters = COPY_CHUNK_CHARACTERS,
  ) {
    this.chunkCharacters = Math.max(1, Math.min(chunkCharacters, batchCharacters));
    void this.read(lines).then(
      () => this.finish(undefined),
      (error: unknown) => this.finish({ error }),
    );
  }

  /** The rows gathered since the last batch, waiting for a chunk of them; undefined once the input is read. */
  async next(): Promise<Batch | undefined> {
    while (this.chunks.length === 0 && !this.finished) await new Promise<void>((resolve) => (this.wakeTaker = resolve));
    if (this.failure) throw this.failure.error;
    if (this.chunks.length === 0) return undefined;
    const batch = { chunks: this.chunks, repeats: this.repeats };
    this.chunks = [];
    this.gathered = 0;
    this.loadNumbers.clear();
    this.repeats = false;
    this.wake('reader');
    return batch;
  }

  /**
   * Stops reading (an import that failed before its input's end): the reader lets go of the input when its
   * next line comes. Not awaited, so that a failure is reported at once even when the input is a pipe
   * whose writer has stalled.
   */
  close(): void {
    this.stopped = true;
    this.wake('reader');
  }

  private async read(lines: Iterable<ImportLine> | AsyncIterable<ImportLine>): Promise<void> {
    let text = '';
    // The loadNumbers of the rows in `text`, added to the batch's when the chunk is: `text` may go to a
    // later batch than the one being gathered while it is written.
    let textLoadNumbers: string[] = [];
    for await (const read of lines) {
      if (this.stopped) return;
      if ('problem' in read) {
        this.problems.push({ line: read.line, message: read.problem });
        continue;
      }
      const check = checkLoadInput(read.value);
      if (!check.ok) {
        this.problems.push(...check.problems.map((message) => ({ line: read.line, message })));
        continue;
      }
      text += copyRow(read.line, check.record);
      textLoadNumbers.push(check.record.loadNumber);
      if (text.length < this.chunkCharacters) continue;
      this.gather(text, textLoadNumbers);
      text = '';
      textLoadNumbers = [];
      while (this.gathered >= this.batchCharacters && !this.stopped) await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
    if (text.length > 0) this.gather(text, textLoadNumbers);
  }

  private gather(text: string, loadNumbers: readonly string[]): void {
    for (const loadNumber of loadNumbers) {
      this.repeats ||= this.loadNumbers.has(loadNumber);
      this.loadNumbers.add(loadNumber);
    }
    this.chunks.push(Buffer.from(text));
    this.gathered += text.length;
    this.wake('taker');
  }

  private finish(failure: { error: unknown } | undefined): void {
    this.failure = failure;
    this.finished = true;
    this.wake('taker');
  }

  private wake(who: 'taker' | 'reader'): void {
    const wake = who === 'taker' ? this.wakeTaker : this.wakeReader;
    if (who === 'taker') this.wakeTaker = undefined;
    else this.wakeReader = undefined;
    wake?.();
  }
}
