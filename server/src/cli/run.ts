// The command table of `loadfeed-server` and the one place where a failure becomes an exit code.
// Commands load on use, so that `--help` and the small commands do not pay for the server's modules.
import { EXIT_CODES, exitCodeHelp, writeLine } from '@loadfeed/spec/cli';
import { COMMON_HELP, isPrintedAsJson, UsageError, type CliContext, type Command } from './command.js';
import { describeFailure } from './errors.js';

interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

const COMMANDS: readonly CommandEntry[] = [
  { name: 'start', summary: 'Run the server (embedded PostgreSQL without DATABASE_URL)', load: async () => (await import('./start.js')).startCommand },
  { name: 'migrate', summary: 'Apply pending database migrations', load: async () => (await import('./migrate.js')).migrateCommand },
  { name: 'customers', summary: 'Add and list customers', load: async () => (await import('./customers.js')).customersCommand },
  { name: 'keys', summary: 'Issue, revoke and list API keys', load: async () => (await import('./keys.js')).keysCommand },
  { name: 'import', summary: 'Upsert loads from an NDJSON file (or stdin)', load: async () => (await import('./import.js')).importCommand },
  { name: 'feed-writers', summary: 'List the transactions holding customers\' feeds back', load: async () => (await import('./feed-writers.js')).feedWritersCommand },
  { name: 'seed', summary: 'Add synthetic customers and realistic loads', load: async () => (await import('./seed.js')).seedCommand },
];

const MAIN_HELP = `Usage: loadfeed-server <command> [options]

The operator's tool for the loadfeed reference server.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(13)}${command.summary}`).join('\n')}

Every command reads DATABASE_URL (or takes --database-url) and explains itself with --help:
  loadfeed-server <command> --help

Options:
${COMMON_HELP}

${exitCodeHelp('loadfeed-server')}`;

/** Runs one command line; resolves to the process's exit code. */
export async function runCli(args: string[], context: CliContext): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      writeLine(context.stdout, MAIN_HELP);
      return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    const entry = COMMANDS.find((candidate) => candidate.name === name);
    if (!entry) throw new UsageError(`unknown command ${JSON.stringify(name)}`, '');
    await (await entry.load()).run(rest, context);
    return EXIT_CODES.ok;
  } catch (error) {
    const failure = describeFailure(error);
    // A program that asked for JSON reads stdout: its failure is JSON there too, and the line on stderr
    // stays for the person watching.
    if (wantsJson(rest) && !isPrintedAsJson(error)) writeLine(context.stdout, JSON.stringify({ error: failure.message, exitCode: failure.exitCode }));
    writeLine(context.stderr, `loadfeed-server: ${failure.message}`);
    return failure.exitCode;
  }
}

/** Whether `--json` is among a command's options (before a `--` that ends them). */
function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}
