// `loadfeed-server import <customerCode> <file.ndjson | ->`: loads from NDJSON, upserted by loadNumber.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CliError, writeLine } from '@loadfeed/spec/cli';
import { checkImport, ImportRejectedError, importLoads, type ImportProblem, type NumberedRow } from '../loads/import.js';
import { MAX_DECIMAL_LENGTH, MAX_TEXT_LENGTH } from '../loads/load-input.js';
import { COMMON_HELP, parseCommandLine, printedAsJsonAlready, type Command } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

interface ParsedInput {
  rows: NumberedRow[];
  /** Lines that are not JSON. */
  problems: ImportProblem[];
}

async function readNdjson(source: NodeJS.ReadableStream, name: string): Promise<ParsedInput> {
  const rows: NumberedRow[] = [];
  const problems: ImportProblem[] = [];
  let line = 0;
  try {
    for await (const read of createInterface({ input: source, crlfDelay: Infinity })) {
      line++;
      // Editors on Windows start UTF-8 files with a byte order mark, which JSON does not allow.
      const text = line === 1 ? read.replace(/^\uFEFF/, '') : read;
      if (text.trim() === '') continue;
      try {
        rows.push({ line, value: JSON.parse(text) as unknown });
      } catch (error) {
        problems.push({ line, message: `not JSON (${error instanceof Error ? error.message : String(error)})` });
      }
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot read ${name}: ${reason}`);
  }
  return { rows, problems };
}

/** Every problem of the input, JSON and field checks together, in line order. */
function problemsOf({ rows, problems }: ParsedInput): ImportProblem[] {
  return [...problems, ...checkImport(rows).problems].sort((a, b) => a.line - b.line);
}

export const importCommand: Command = {
  name: 'import',
  help: `Usage: loadfeed-server import <customerCode> <file.ndjson | -> [--skip-invalid] [--json] [options]

Reads one Load per line (JSON objects with the API's field names; updatedAt is the server's, so leave it
out; a nullable field left out is null) and upserts them for the customer by loadNumber. \`-\` reads stdin.
A text field holds at most ${MAX_TEXT_LENGTH} characters, a decimal string ${MAX_DECIMAL_LENGTH}.

All or nothing: the whole input is checked first, and if any line is bad nothing is imported and every
bad line is listed with the reason. Rows are then written in one transaction: a killed import leaves
nothing, and the customer's feed waits for the import rather than missing a change. A row whose values did
not change is not written and keeps its updatedAt, so importing the same file again is harmless.

Prints how many loads were inserted, changed and unchanged.

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
    const input = await readNdjson(file === '-' ? stdin : createReadStream(file), file === '-' ? 'stdin' : file);
    const problems = problemsOf(input);
    const report = (listed: ImportProblem[]): void => {
      for (const problem of listed) writeLine(stderr, `line ${problem.line}: ${problem.message}`);
    };
    if (problems.length > 0 && !values['skip-invalid']) {
      const rejected = new ImportRejectedError(problems);
      if (!values.json) {
        report(problems);
        throw rejected;
      }
      writeLine(stdout, JSON.stringify({ imported: false, error: rejected.message, problems }));
      throw printedAsJsonAlready(rejected);
    }
    const badLines = new Set(problems.map((problem) => problem.line));
    const summary = await withPool(databaseUrl, (pool) => importLoads(pool, customerCode, input.rows.filter((row) => !badLines.has(row.line))));
    const skipped = values['skip-invalid'] ? { skipped: badLines.size } : {};
    if (values.json) return writeLine(stdout, JSON.stringify({ ...summary, ...skipped, ...(problems.length > 0 ? { problems } : {}) }));
    report(problems);
    writeLine(
      stdout,
      `imported for ${customerCode}: ${summary.inserted} inserted, ${summary.changed} changed, ${summary.unchanged} unchanged` +
        (values['skip-invalid'] ? `, ${badLines.size} line(s) skipped` : ''),
    );
  },
};
