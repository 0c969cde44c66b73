// Where a sync keeps its copy: rows upserted by loadNumber and the cursor after them, written together,
// so that the copy and its cursor never disagree, whenever the process stops. `loadfeed sync` and
// `loadfeed verify` use the same interface; `@loadfeed/sdk/destinations` has PostgreSQL, SQLite and NDJSON.
import type { LoadRow } from './client.js';
import type { RemovalCopy } from './removals/copy.js';

export interface Destination {
  /** The cursor stored with the rows: the largest updatedAt the copy has passed; undefined before the first page. */
  loadCursor(): Promise<string | undefined> | string | undefined;
  /**
   * Upserts `rows` by loadNumber and, when `cursor` is given, stores it, in ONE transaction: after a
   * crash at any point the copy holds the rows and the cursor, or neither. (A file cannot do that: the
   * NDJSON file writes and flushes the rows before it replaces the cursor, which is never ahead of them.)
   */
  write(rows: LoadRow[], cursor: string | undefined): Promise<void> | void;
  /** Leaves the copy complete and consistent and releases it; also after a failure. */
  close(): Promise<void>;
  /** How the copy counts its loads by pickup date and marks those that left the feed (README "Removals"). */
  removals?: RemovalCopy;
}

/** What `verifyCopy` reads of a copy: its cursor, the rows it holds for some loadNumbers, and every loadNumber. */
export interface CopyReader {
  loadCursor(): Promise<string | undefined> | string | undefined;
  /** The copy's rows among `loadNumbers`, with the API's field names and its value shapes. */
  readRows(loadNumbers: readonly string[]): Promise<LoadRow[]>;
  /** Every loadNumber in the copy, a batch at a time. */
  loadNumbers(): AsyncIterable<string[]>;
  /** Which loads the copy holds marked removed (README "Removals"), for a copy that marks them. */
  removals?: Pick<RemovalCopy, 'removedAmong'>;
}

/** A destination a sync writes and `verifyCopy` reads. */
export type CopyDestination = Destination & CopyReader;
