// What every command shares: its shape, the options all of them take, and the errors that end a run
// with a one-line reason instead of a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  /** The whole `--help` text. */
  help: string;
  run(args: string[], context: CliContext): Promise<void>;
}

/** A command of a group (`keys create`), with the line its group's help lists it by. */
export interface Subcommand extends Command {
  summary: string;
}

/** A failure the operator can fix: printed as one line, exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** A command line that does not parse: printed as one line with a pointer to `--help`, exit code 2. */
export class UsageError extends CliError {
  override readonly exitCode = 2;
  constructor(message: string, helpCommand: string) {
    super(`${message} (see \`loadfeed-server ${helpCommand ? `${helpCommand} ` : ''}--help\`)`);
    this.name = 'UsageError';
  }
}

const printedAsJson = new WeakSet<object>();

/** Marks a failure a command has already printed as JSON on stdout (import's problems), so it is not printed twice. */
export function printedAsJsonAlready<E extends Error>(error: E): E {
  printedAsJson.add(error);
  return error;
}

export function isPrintedAsJson(error: unknown): boolean {
  return typeof error === 'object' && error !== null && printedAsJson.has(error);
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The options every command takes. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'database-url': { type: 'string' },
} as const satisfies OptionsConfig;

export const COMMON_HELP = `  --database-url <url>   PostgreSQL connection string (default: $DATABASE_URL)
  -h, --help             Show this help`;

type OptionValue<T> = T extends { type: 'boolean' } ? boolean : string;

export interface ParsedCommandLine<O extends OptionsConfig> {
  values: { [K in keyof O]?: OptionValue<O[K]> } & { help?: boolean; 'database-url'?: string };
  positionals: string[];
}

/** Parses a command's arguments strictly: an unknown option or a wrong number of arguments is a UsageError. */
export function parseCommandLine<const O extends OptionsConfig>(
  commandName: string,
  args: string[],
  options: O,
  positionals: { names: readonly string[]; required: number },
): ParsedCommandLine<O> {
  let parsed: ParsedCommandLine<O>;
  try {
    parsed = parseArgs({ args, options: { ...options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true }) as ParsedCommandLine<O>;
  } catch (error) {
    throw new UsageError(parseErrorMessage(error), commandName);
  }
  if (parsed.values.help) return parsed;
  if (parsed.positionals.length < positionals.required) {
    const missing = positionals.names.slice(parsed.positionals.length, positionals.required).map((name) => `<${name}>`);
    throw new UsageError(`missing ${missing.join(' ')}`, commandName);
  }
  if (parsed.positionals.length > positionals.names.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[positionals.names.length])}`, commandName);
  }
  return parsed;
}

function parseErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const option = /^Unknown option '([^']+)'/.exec(message);
  if (option) return `unknown option ${option[1]}`;
  // node's own messages are long and end with advice about positionals; their first sentence says it.
  return message.split(/\.\s/)[0]!.replace(/\.$/, '').replace(/^Option '([^']+)'/, 'option $1');
}

/** A positive whole number from an option value, or a UsageError naming the option. */
export function positiveInteger(value: string | undefined, option: string, commandName: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${option} must be a whole number of at least 1 (got ${JSON.stringify(value)})`, commandName);
  }
  return Number(value);
}

export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}

/** A command made of subcommands (`keys create`, `keys list`): dispatches on the first argument. */
export function commandGroup(name: string, description: string, subcommands: readonly Subcommand[]): Command {
  const help = `Usage: loadfeed-server ${name} <subcommand> [options]

${description}

Subcommands:
${subcommands.map((subcommand) => `  ${subcommand.name.padEnd(9)}${subcommand.summary}`).join('\n')}

\`loadfeed-server ${name} <subcommand> --help\` explains each.`;
  return {
    name,
    help,
    async run(args, context) {
      const [first, ...rest] = args;
      if (first === undefined || first === '--help' || first === '-h') {
        writeLine(context.stdout, help);
        if (first === undefined) throw new UsageError('missing subcommand', name);
        return;
      }
      const subcommand = subcommands.find((candidate) => candidate.name === first);
      if (!subcommand) throw new UsageError(`unknown subcommand ${JSON.stringify(first)}`, name);
      await subcommand.run(rest, context);
    },
  };
}

/** Rows as aligned columns under a header; empty cells show as "-". */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | null)[])[]): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => cell ?? '-'))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}
