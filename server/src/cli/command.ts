// What every `loadfeed-server` command shares: its shape, the options all of them take, and the failures
// that end a run with a one-line reason instead of a stack trace (the program-neutral parts come from
// @loadfeed/spec/cli, which the SDK's command line uses too).
import { commandLineOf, writeLine, type FlagOptions, type ParsedFlags } from '@loadfeed/spec/cli';

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

/** The usage failure and the readers that raise it, each pointing at `loadfeed-server … --help`. */
const { UsageError, parseStrictly, positiveInteger } = commandLineOf('loadfeed-server');
export { UsageError, positiveInteger };

const printedAsJson = new WeakSet<object>();

/** Marks a failure a command has already printed as JSON on stdout (import's problems), so it is not printed twice. */
export function printedAsJsonAlready<E extends Error>(error: E): E {
  printedAsJson.add(error);
  return error;
}

export function isPrintedAsJson(error: unknown): boolean {
  return typeof error === 'object' && error !== null && printedAsJson.has(error);
}

/** The options every command takes. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'database-url': { type: 'string' },
} as const satisfies FlagOptions;

export const COMMON_HELP = `  --database-url <url>   PostgreSQL connection string (default: $DATABASE_URL)
  -h, --help             Show this help`;

/** Parses a command's arguments strictly: an unknown option or a wrong number of arguments is a UsageError. */
export function parseCommandLine<const O extends FlagOptions>(
  commandName: string,
  args: string[],
  options: O,
  positionals: { names: readonly string[]; required: number },
): ParsedFlags<O & typeof COMMON_OPTIONS> {
  const parsed = parseStrictly(commandName, args, { ...options, ...COMMON_OPTIONS });
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
