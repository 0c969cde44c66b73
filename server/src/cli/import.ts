// `loadfeed-server import <customerCode> <file.ndjson | ->`: loads from NDJSON, upserted by loadNumber.
import { open } from 'node:fs/promises';
import { CliError, writeLine } from '@loadfeed/spec/cli';
import { ImportRejectedError, importLoadLines, type ImportProblem } from '../loads/import.js';
import { MAX_DECIMAL_LENGTH, MAX_TEXT_LENGTH } from '../loads/load-input.js';
import { MAX_LINE_BYTES, ndjsonLines } from '../loads/ndjson-lines.js';
import { COMMON_HELP, parseCommandLine, printedAsJsonAlready, type Command } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

function reasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
}

/** The input's bytes; a read that fails (a missing file, a directory) is a one-line CliError. */
async function* bytesOf(file: string, stdin: NodeJS.ReadableStream): AsyncGenerator<Buffer | string> {
  const name = file === '-' ? 'stdin' : file;
  try {
    if (file === '-') {
      yield* stdin as AsyncIterable<Buffer | string>;
      return;
    }
    const handle = await open(file);
    try {
      yield* handle.createReadStream({ autoClose: false });
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CliError(`cannot read ${name}: ${reasonOf(error)}`);
  }
}

export const importCommand: Command = {
  name: 'import',
  help: `Usage: loadfeed-server import <customerCode> <file.ndjson | -> [--skip-invalid] [--json] [options]

Reads one Load per line (JSON objects with the API's field names; updatedAt is the server's, so leave it
out; a nullable field left out is null) and upserts them for the customer by loadNumber. \`-\` reads stdin.
A text field holds at most ${MAX_TEXT_LENGTH} characters, a decimal string ${MAX_DECIMAL_LENGTH}; a line at most
${MAX_LINE_BYTES} bytes of UTF-8.

All or nothing: every line is checked as it is read, and if any line is bad nothing is imported and every
bad line is listed with the reason. The input is streamed into one transaction, so memory stays flat
whatever its length: a killed import leaves nothing, and the customer's feed waits for the import rather
than missing a change. A row whose values did not change is not written and keeps its updatedAt, so
importing the same file again is harmless. Imports of one customer may run at once: they take turns at
the upsert.

Prints how many loads were inserted, changed and unchanged, and how many of them the feed will not serve
today: a scheduledPickupDate before the 12-month window, or none (they are stored all the same).

Options:
  --skip-invalid         Import the good lines, list the bad ones, and succeed
  --json                 Print the summary (or the problems) as one line of JSON
${COMMON_HELP}`,
  async run(args, { stdout, stderr, stdin, env }) {
    const { values, positionals } = parseCommandLine(
      'import',
      args,
      { json: { type: 'boolean' }, 'skip-invalid': { type: 'boolean' } },
      { names: ['customerCode', 'file'], required: 2 },
    );
    if (values.help) return writeLine(stdout, this.help);
    const [customerCode, file] = positionals as [string, string];
    const databaseUrl = databaseUrlOf(values['database-url'], env);
    const report = (listed: ImportProblem[]): void => {
      for (const problem of listed) writeLine(stderr, `line ${problem.line}: ${problem.message}`);
    };
    const skipInvalid = values['skip-invalid'] === true;
    let outcome;
    try {
      outcome = await withPool(databaseUrl, (pool) => importLoadLines(pool, customerCode, ndjsonLines(bytesOf(file, stdin)), { skipInvalid }));
    } catch (error) {
      if (!(error instanceof ImportRejectedError)) throw error;
      if (!values.json) {
        report(error.problems);
        throw error;
      }
      writeLine(stdout, JSON.stringify({ imported: false, error: error.message, problems: error.problems }));
      throw printedAsJsonAlready(error);
    }
    const { summary, notServed, problems } = outcome;
    const skippedLines = new Set(problems.map((problem) => problem.line)).size;
    const skipped = skipInvalid ? { skipped: skippedLines } : {};
    if (values.json) return writeLine(stdout, JSON.stringify({ ...summary, ...skipped, notServed, ...(problems.length > 0 ? { problems } : {}) }));
    report(problems);
    writeLine(
      stdout,
      `imported for ${customerCode}: ${summary.inserted} inserted, ${summary.changed} changed, ${summary.unchanged} unchanged` +
        (skipInvalid ? `, ${skippedLines} line(s) skipped` : ''),
    );
    const unserved = notServed.beforeWindow + notServed.noPickupDate;
    if (unserved > 0) {
      writeLine(
        stdout,
        `not served: ${unserved} of them (${notServed.beforeWindow} before the feed's 12-month window, which starts ${notServed.windowStart}; ` +
          `${notServed.noPickupDate} without a scheduledPickupDate)`,
      );
    }
  },
};
