// Importing loads (the CLI's `import`, the test server's importLoads), streamed: each row is checked once,
// as it is read, and copied (COPY) into a staging table of the import's own transaction a batch at a time;
// each batch is then upserted by loadNumber in one statement while the next batch is read and checked, so
// that Node's reading and PostgreSQL's writing run side by side (on two cores the import takes about the
// longer of the two instead of their sum). Memory is bounded by two batches, not the input. Nothing is
// written if any row is bad (unless the caller skips bad rows): the transaction is rolled back, and
// nothing of an import is visible until all of it is, even when it is killed part-way. Each row is stamped
// when it is written, and the settled feed (sql/functions/announce_feed_writer.sql) holds the customer's
// feed back from the first batch's upsert until the commit instead of letting a change slip behind
// clients' cursors. A row whose values did not change is not written at all, and keeps its updatedAt; the
// database's trigger keeps the rule for every other writer too.
//
// Concurrent imports of one customer take turns: each takes a transaction-level advisory lock of the
// customer's imports (IMPORT_LOCK_CLASS) before its first upsert and holds it to its commit, so two
// imports never lock shared loads in opposite orders and deadlock (an import read from stdin could not be
// retried). The one that waits has read and checked up to two batches meanwhile; the rows keep the input's
// order (their ids and stamps follow it).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { feedWindowStart } from '@loadfeed/spec';
import { customerIdOf, OperatorError } from '../customers.js';
import { withTransaction } from '../db/pool.js';
import {
  BATCH_REPEATED_SQL,
  CLEAR_BATCH_SQL,
  COPY_SQL,
  DROP_REPEATED_SQL,
  IMPORT_LOCK_CLASS,
  KEEP_KEYS_SQL,
  KEYS_SQL,
  NOT_SERVED_SQL,
  REMEMBER_SQL,
  REPEATED_SQL,
  SEEN_SQL,
  STAGING_SQL,
  TAKE_TURN_SQL,
  UNBOUNDED_SQL,
  UPSERT_SQL,
} from './import-sql.js';
import { BatchReader } from './import-batches.js';

/** A read row of the input (a line of an NDJSON file), numbered for messages. */
export interface NumberedRow {
  line: number;
  value: unknown;
}

/** A read row, or a line that could not be read as one (too long, not UTF-8, not JSON) and why. */
export type ImportLine = NumberedRow | { line: number; problem: string };

export interface ImportSummary {
  inserted: number;
  changed: number;
  unchanged: number;
}

/**
 * The imported loads the feed does not serve on the day of the import: a pickup before the 12-month
 * window's start (that day minus 12 months, UTC), or no pickup date at all. They are stored all the same.
 */
export interface NotServed {
  beforeWindow: number;
  noPickupDate: number;
  /** The window's first day, as of the import (YYYY-MM-DD). */
  windowStart: string;
}

export interface ImportProblem {
  line: number;
  message: string;
}

export interface ImportOptions {
  /** Import the good rows and report the bad ones, instead of importing nothing. */
  skipInvalid?: boolean;
  /** How much COPY text a batch holds (BATCH_CHARACTERS); tests make batches of a few rows. */
  batchCharacters?: number;
  /** The moment the feed's window is drawn from for `notServed` (default: now). */
  now?: Date;
}

export interface ImportOutcome {
  summary: ImportSummary;
  notServed: NotServed;
  /** Every bad line, in line order (only when skipInvalid: otherwise they are thrown). */
  problems: ImportProblem[];
}

/** An input with bad rows; nothing was written. `problems` names every one, in line order. */
export class ImportRejectedError extends OperatorError {
  override name = 'ImportRejectedError';
  constructor(readonly problems: ImportProblem[]) {
    super(`nothing imported: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the input`);
  }
}

/**
 * The most COPY text one batch holds (~6,000 loads of ~700 bytes): while one is upserted, the next is read
 * (two batches in memory at most). A batch is what has been read when PostgreSQL is ready for it
 * (import-batches.ts), so it is this large only when Node is ahead.
 */
export const BATCH_CHARACTERS = 4 * 1024 * 1024;

/**
 * Upserts the rows of `lines` for a customer in one transaction. Every row is checked; with any bad row
 * nothing is written and ImportRejectedError lists every problem, unless `skipInvalid`: then the good
 * rows are written and the problems returned. A loadNumber may appear once in one input.
 */
export async function importLoadLines(
  pool: pg.Pool,
  customerCode: string,
  lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
  { skipInvalid = false, batchCharacters = BATCH_CHARACTERS, now = new Date() }: ImportOptions = {},
): Promise<ImportOutcome> {
  // An unknown customer fails the import before a line of its input is read.
  const customerId = await customerIdOf(pool, customerCode);
  const problems: ImportProblem[] = [];
  // Reading starts now: the first batch is read and checked while the transaction is set up.
  const batches = new BatchReader(lines, problems, batchCharacters);
  try {
    return await withTransaction(pool, (client) => importBatches(client, customerId, batches, problems, skipInvalid, feedWindowStart(now)));
  } finally {
    // An import that failed before its input's end stops reading it.
    batches.close();
  }
}

/** The import's transaction: each batch staged and upserted in turn, then the repeats looked for. */
async function importBatches(
  client: pg.PoolClient,
  customerId: string,
  batches: BatchReader,
  problems: ImportProblem[],
  skipInvalid: boolean,
  windowStart: Date,
): Promise<ImportOutcome> {
  await client.query(UNBOUNDED_SQL);
  await client.query(STAGING_SQL);
  // Repeated loadNumbers: an import that skips bad lines drops each repeat before its batch is written
  // (a table of the loadNumbers seen, indexed); one refused on any bad line finds them all at its end,
  // over a plain list of every line's loadNumber, which costs a fraction of the index.
  await client.query(skipInvalid ? SEEN_SQL : KEYS_SQL);
  const summary: ImportSummary = { inserted: 0, changed: 0, unchanged: 0 };
  const notServed: NotServed = { beforeWindow: 0, noPickupDate: 0, windowStart: windowStart.toISOString().slice(0, 10) };
  let refused = false;
  let turnTaken = false;
  for (let batch = await batches.next(); batch; batch = await batches.next()) {
    await pipeline(Readable.from(batch.chunks), client.query(copyFrom(COPY_SQL)));
    if (skipInvalid) {
      await client.query(REMEMBER_SQL);
      const repeated = await client.query<RepeatedRow>(BATCH_REPEATED_SQL);
      problems.push(...repeated.rows.map(repeatProblem));
      if (repeated.rows.length > 0) await client.query(DROP_REPEATED_SQL);
    } else {
      await client.query(KEEP_KEYS_SQL);
      // An import that will be refused writes nothing more (a batch holding a loadNumber twice could
      // not be upserted in one statement); its remaining lines are still read and checked, so that the
      // refusal names every bad one.
      refused ||= problems.length > 0 || batch.repeats;
    }
    if (!refused) {
      if (!turnTaken) await client.query(TAKE_TURN_SQL, [IMPORT_LOCK_CLASS, customerId]);
      turnTaken = true;
      const counts = (await client.query<{ staged: number; inserted: number; written: number }>(UPSERT_SQL, [customerId])).rows[0]!;
      summary.inserted += counts.inserted;
      summary.changed += counts.written - counts.inserted;
      summary.unchanged += counts.staged - counts.written;
      const outside = (await client.query<{ before_window: number; no_pickup_date: number }>(NOT_SERVED_SQL, [windowStart.getTime()])).rows[0]!;
      notServed.beforeWindow += outside.before_window;
      notServed.noPickupDate += outside.no_pickup_date;
    }
    await client.query(CLEAR_BATCH_SQL);
  }
  if (!skipInvalid) problems.push(...(await client.query<RepeatedRow>(REPEATED_SQL)).rows.map(repeatProblem));
  // Stable: a line's own problems keep their order.
  problems.sort((a, b) => a.line - b.line);
  if (problems.length > 0 && !skipInvalid) throw new ImportRejectedError(problems);
  return { summary, notServed, problems };
}

interface RepeatedRow {
  line: number;
  load_number: string;
  first_line: number;
}

function repeatProblem(row: RepeatedRow): ImportProblem {
  return { line: row.line, message: `loadNumber ${JSON.stringify(row.load_number)} appears already on line ${row.first_line}` };
}

/** Upserts rows for a customer, all or nothing; throws ImportRejectedError listing every bad line. */
export async function importLoads(pool: pg.Pool, customerCode: string, rows: Iterable<ImportLine> | AsyncIterable<ImportLine>): Promise<ImportSummary> {
  return (await importLoadLines(pool, customerCode, rows)).summary;
}
