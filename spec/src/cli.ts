// What the two command lines, the server's `loadfeed-server` and the SDK's `loadfeed`, share: the failures
// that end a run with one line and an exit code, strict flag parsing, the positive-integer reader and the
// line and table printers. They live in the contract's package because it is the one package both command
// lines already depend on; a package of their own would cost a build, a version and a release, more than
// the duplication it saves. The main entry does not import this file, so a program that uses only the
// contract never loads it, and it adds no dependency: node:util and node:os are all it needs.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { exitCodesOf } from './exit-codes.js';

export * from './exit-codes.js';

/** The exit codes both command lines give (the customer's `loadfeed` adds its own): EXIT_CODE_TABLE's. */
export const EXIT_CODES = exitCodesOf('loadfeed-server');

/** A failure the user can act on: one line on stderr, exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = EXIT_CODES.failure;
  override name = 'CliError';
}

export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs gives for one flag: a boolean, a string, or every string of a repeatable flag. */
type FlagValue<T> = T extends { type: 'boolean' } ? boolean : T extends { multiple: true } ? string[] : string;
export type FlagValues<O extends FlagOptions> = { [K in keyof O]?: FlagValue<O[K]> };

export interface ParsedFlags<O extends FlagOptions> {
  values: FlagValues<O>;
  positionals: string[];
}

/** A command line that does not parse: one line with a pointer to `--help`, exit code 2. */
export interface UsageError extends CliError {
  readonly exitCode: typeof EXIT_CODES.usage;
}

/** The pieces that name their program, each a plain function to destructure: every pointer to `--help` says which command line to ask. */
export interface CommandLine {
  UsageError: new (message: string, commandName: string) => UsageError;
  /** Parses flags strictly: an unknown flag or a missing value is a UsageError; which positionals may stand is the caller's to say. */
  parseStrictly: <const O extends FlagOptions>(commandName: string, args: string[], options: O) => ParsedFlags<O>;
  /** A whole number of at least 1 from a flag, or a UsageError naming the flag. */
  positiveInteger: (value: string | undefined, flag: string, commandName: string) => number | undefined;
}

export function commandLineOf(program: string): CommandLine {
  class UsageError extends CliError {
    override readonly exitCode = EXIT_CODES.usage;
    override name = 'UsageError';
    constructor(message: string, commandName: string) {
      super(`${message} (see \`${program} ${commandName ? `${commandName} ` : ''}--help\`)`);
    }
  }

  function parseStrictly<const O extends FlagOptions>(commandName: string, args: string[], options: O): ParsedFlags<O> {
    try {
      return parseArgs({ args, options, allowPositionals: true, strict: true }) as ParsedFlags<O>;
    } catch (error) {
      throw new UsageError(parseErrorMessage(error), commandName);
    }
  }

  function positiveInteger(value: string | undefined, flag: string, commandName: string): number | undefined {
    if (value === undefined) return undefined;
    if (!/^[0-9]+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
      throw new UsageError(`${flag} must be a whole number of at least 1 (got ${JSON.stringify(value)})`, commandName);
    }
    return Number(value);
  }

  return { UsageError, parseStrictly, positiveInteger };
}

function parseErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  // node's messages run on with advice about positionals; their first sentence says what is wrong.
  return message.split(/\.\s/)[0]!.replace(/\.$/, '').replace(/^Option '([^']+)'/, 'option $1');
}

export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}

/** Rows as aligned columns under a header, two spaces apart; empty cells show as "-". */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | null)[])[]): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => cell ?? '-'))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}
