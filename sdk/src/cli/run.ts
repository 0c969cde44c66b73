// The command table of `loadfeed` and the one place where a failure becomes a line and an exit code.
import { writeLine } from '@loadfeed/spec/cli';
import { EXIT_CODE_HELP, EXIT_CODES, UsageError, type CliContext, type Command } from './command.js';
import { describeFailure } from './failure.js';
import { listCommand } from './list.js';
import { syncCommand } from './sync.js';
import { verifyCommand } from './verify.js';

const COMMANDS: readonly Command[] = [syncCommand, verifyCommand, listCommand];

const HELP = `Usage: loadfeed <command> [options]

The command line of the loadfeed SDK: your loads from the Customer Data API.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(8)}${command.summary}`).join('\n')}

The deployment and your key come from LOADFEED_BASE_URL and LOADFEED_API_KEY (or --base-url and
--api-key). \`loadfeed <command> --help\` explains each command.

${EXIT_CODE_HELP}`;

/** Runs one command line; resolves to the process's exit code. */
export async function runCli(args: string[], context: CliContext): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      writeLine(name === undefined ? context.stderr : context.stdout, HELP);
      return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`, '');
    await command.run(rest, context);
    return EXIT_CODES.ok;
  } catch (error) {
    const failure = describeFailure(error);
    writeLine(context.stderr, `loadfeed: ${failure.message}`);
    return failure.exitCode;
  }
}
