// The command table of `loadfeed-server` and the one place where a failure becomes an exit code.
import { COMMON_HELP, UsageError, writeLine, type CliContext, type Command } from './command.js';
import { describeFailure } from './errors.js';
import { customersCommand } from './customers.js';
import { importCommand } from './import.js';
import { keysCommand } from './keys.js';
import { migrateCommand } from './migrate.js';
import { seedCommand } from './seed.js';
import { startCommand } from './start.js';

const COMMANDS: readonly Command[] = [startCommand, migrateCommand, customersCommand, keysCommand, importCommand, seedCommand];

const MAIN_HELP = `Usage: loadfeed-server <command> [options]

The operator's tool for the loadfeed reference server.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(11)}${command.summary}`).join('\n')}

Every command reads DATABASE_URL (or takes --database-url) and explains itself with --help:
  loadfeed-server <command> --help

Options:
${COMMON_HELP}`;

/** Runs one command line; resolves to the process's exit code. */
export async function runCli(args: string[], context: CliContext): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      writeLine(context.stdout, MAIN_HELP);
      return name === undefined ? 2 : 0;
    }
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`, '');
    await command.run(rest, context);
    return 0;
  } catch (error) {
    const failure = describeFailure(error);
    writeLine(context.stderr, `loadfeed-server: ${failure.message}`);
    return failure.exitCode;
  }
}
