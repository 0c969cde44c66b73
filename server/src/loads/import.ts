// Importing loads (the CLI's `import`, the test server's importLoads), streamed: each row is checked once,
// as it is read, and copied (COPY) into a staging table of the import's own transaction; then one statement
// upserts the staged rows by loadNumber. Memory is bounded by the longest row, not the input. Nothing is
// written if any row is bad (unless the caller skips bad rows), and nothing of an import is visible until
// all of it is, even when it is killed part-way. Each row is stamped when it is written, and the settled
// feed (sql/functions/announce_feed_writer.sql) holds the customer's feed back while the upsert runs
// instead of letting a change slip behind clients' cursors. A row whose values did not change is not
// written at all, and keeps its updatedAt; the database's trigger keeps the rule for every other writer
// too.
//
// Concurrent imports of one customer take turns at the upsert: each takes a transaction-level advisory lock
// of the customer's imports first (IMPORT_LOCK_CLASS), so two imports never lock shared loads in opposite
// orders and deadlock (an import read from stdin could not be retried). Their reading, checking and staging
// still run side by side; the rows keep the input's order (their ids and stamps follow it).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { customerIdOf, OperatorError } from '../customers/customers.js';
import { withTransaction } from '../db/pool.js';
import { WRITABLE_LOAD_FIELDS } from './columns.js';
import { COPY_SQL, DROP_REPEATED_SQL, IMPORT_LOCK_CLASS, REPEATED_SQL, STAGING_SQL, TAKE_TURN_SQL, UNBOUNDED_SQL, UPSERT_SQL } from './import-sql.js';
import { checkLoadInput, type LoadRecord } from './load-input.js';

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

export interface ImportProblem {
  line: number;
  message: string;
}

export interface ImportOptions {
  /** Import the good rows and report the bad ones, instead of importing nothing. */
  skipInvalid?: boolean;
}

export interface ImportOutcome {
  summary: ImportSummary;
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

/** How much COPY text is gathered before it is sent: few messages, little memory. */
const COPY_CHUNK_CHARACTERS = 64 * 1024;

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** Whether a value holds one of them: one test for nearly every value, which holds none. */
const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_SPECIALS = /[\\\n\r\t]/g;

/** A value in COPY's text format: \N for null, and the four characters the format gives meaning escaped. */
function copyValue(value: string | null): string {
  if (value === null) return '\\N';
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIALS, (character) => COPY_ESCAPES[character]!) : value;
}

function copyRow(line: number, record: LoadRecord): string {
  let text = String(line);
  for (const field of WRITABLE_LOAD_FIELDS) text += `\t${copyValue(record[field])}`;
  return `${text}\n`;
}

/** The good rows of `lines` as COPY text; each bad line's problems go to `problems` as they are found. */
async function* copyText(lines: Iterable<ImportLine> | AsyncIterable<ImportLine>, problems: ImportProblem[]): AsyncGenerator<string> {
  let text = '';
  for await (const read of lines) {
    if ('problem' in read) {
      problems.push({ line: read.line, message: read.problem });
      continue;
    }
    const check = checkLoadInput(read.value);
    if (!check.ok) {
      problems.push(...check.problems.map((message) => ({ line: read.line, message })));
      continue;
    }
    text += copyRow(read.line, check.record);
    if (text.length >= COPY_CHUNK_CHARACTERS) {
      yield text;
      text = '';
    }
  }
  if (text.length > 0) yield text;
}

/**
 * Upserts the rows of `lines` for a customer in one transaction. Every row is checked; with any bad row
 * nothing is written and ImportRejectedError lists every problem, unless `skipInvalid`: then the good
 * rows are written and the problems returned. A loadNumber may appear once in one input.
 */
export async function importLoadLines(
  pool: pg.Pool,
  customerCode: string,
  lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
  { skipInvalid = false }: ImportOptions = {},
): Promise<ImportOutcome> {
  const customerId = await customerIdOf(pool, customerCode);
  return withTransaction(pool, async (client) => {
    await client.query(UNBOUNDED_SQL);
    await client.query(STAGING_SQL);
    const problems: ImportProblem[] = [];
    await pipeline(Readable.from(copyText(lines, problems)), client.query(copyFrom(COPY_SQL)));
    const repeated = await client.query<{ line: number; load_number: string; first_line: number }>(REPEATED_SQL);
    for (const row of repeated.rows) {
      problems.push({ line: row.line, message: `loadNumber ${JSON.stringify(row.load_number)} appears already on line ${row.first_line}` });
    }
    // Stable: a line's own problems keep their order.
    problems.sort((a, b) => a.line - b.line);
    if (problems.length > 0 && !skipInvalid) throw new ImportRejectedError(problems);
    if (repeated.rows.length > 0) await client.query(DROP_REPEATED_SQL);
    await client.query(TAKE_TURN_SQL, [IMPORT_LOCK_CLASS, customerId]);
    const counts = (await client.query<{ staged: number; inserted: number; written: number }>(UPSERT_SQL, [customerId])).rows[0]!;
    return { summary: { inserted: counts.inserted, changed: counts.written - counts.inserted, unchanged: counts.staged - counts.written }, problems };
  });
}

/** Upserts rows for a customer, all or nothing; throws ImportRejectedError listing every bad line. */
export async function importLoads(pool: pg.Pool, customerCode: string, rows: Iterable<ImportLine> | AsyncIterable<ImportLine>): Promise<ImportSummary> {
  return (await importLoadLines(pool, customerCode, rows)).summary;
}
