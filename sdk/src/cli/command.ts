// What the `loadfeed` commands share: their shape, strict flag parsing, where the deployment and the key
// come from, and the exit codes with the failures a command raises on purpose (the codes themselves are
// @loadfeed/spec/cli's EXIT_CODE_TABLE). The program-neutral parts come from @loadfeed/spec/cli, which the
// server's command line uses too.
import { API_KEY_PREFIX } from '@loadfeed/spec';
import { CliError, commandLineOf, exitCodeHelp, exitCodesOf, writeLine, type FlagOptions, type FlagValues } from '@loadfeed/spec/cli';

export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  /** Aborts on Ctrl-C or SIGTERM (its reason is the signal's name): every request and wait stops, the command ends cleanly. */
  signal: AbortSignal;
}

export interface Command {
  name: string;
  summary: string;
  help: string;
  run(args: string[], context: CliContext): Promise<void>;
}

/** `loadfeed`'s exit codes (the command lines' shared ones and its own), from @loadfeed/spec/cli's one table. */
export const EXIT_CODES = exitCodesOf('loadfeed');

export const EXIT_CODE_HELP = exitCodeHelp('loadfeed');

/** The rate limit stopped the command and it kept what it had: exit 3, not a failure. */
export class StoppedByRateLimit extends CliError {
  override readonly exitCode = EXIT_CODES.rateLimited;
  override name = 'StoppedByRateLimit';
}

/** The usage failure and the readers that raise it, each pointing at `loadfeed … --help`. */
const { UsageError, parseStrictly, positiveInteger } = commandLineOf('loadfeed');
export { UsageError, positiveInteger };

/** Ctrl-C or SIGTERM: the command stopped where it was asked to, with everything saved; exit 128 + the signal's number. */
export class Interrupted extends CliError {
  override readonly exitCode: number;
  override name = 'Interrupted';
  constructor(message: string, signal: unknown) {
    super(message);
    this.exitCode = signal === 'SIGTERM' ? EXIT_CODES.terminated : EXIT_CODES.interrupted;
  }
}

export const ENV_BASE_URL = 'LOADFEED_BASE_URL';
export const ENV_API_KEY = 'LOADFEED_API_KEY';

/** The flags every command that calls the API takes. */
export const CONNECTION_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies FlagOptions;

export const CONNECTION_HELP = `  --base-url <url>     The deployment, e.g. https://loads.example.com (default: $${ENV_BASE_URL})
  --api-key <key>      Your API key (default: $${ENV_API_KEY}; prefer the variable: a flag shows
                       in the process list)
  -h, --help           Show this help`;

/** Parses flags strictly: an unknown flag, a missing value or a stray argument is a UsageError. */
export function parseFlags<const O extends FlagOptions>(commandName: string, args: string[], options: O): FlagValues<O> {
  const parsed = parseStrictly(commandName, args, options);
  const [stray] = parsed.positionals;
  if (stray !== undefined) {
    // Never echo something that may be a key.
    const shown = looksLikeKey(stray) ? `(a value that looks like an API key: set ${ENV_API_KEY} instead)` : JSON.stringify(stray);
    throw new UsageError(`unexpected argument ${shown}`, commandName);
  }
  return parsed.values;
}

export function looksLikeKey(text: string): boolean {
  return text.toLowerCase().startsWith(API_KEY_PREFIX);
}

export interface Connection {
  baseUrl: string;
  apiKey: string;
}

/** The deployment and the key: from the flags, else from the environment; both are required. */
export function connectionOf(
  values: { 'base-url'?: string | undefined; 'api-key'?: string | undefined },
  context: CliContext,
  commandName: string,
): Connection {
  const baseUrl = values['base-url'] ?? context.env[ENV_BASE_URL];
  const apiKey = values['api-key'] ?? context.env[ENV_API_KEY];
  if (!baseUrl) throw new UsageError(`the base URL is missing: pass --base-url or set ${ENV_BASE_URL}`, commandName);
  if (!apiKey) throw new UsageError(`the API key is missing: set ${ENV_API_KEY} (or pass --api-key)`, commandName);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`the base URL is not a URL: ${JSON.stringify(baseUrl)}`, commandName);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the base URL must be http:// or https:// (got ${JSON.stringify(baseUrl)})`, commandName);
  }
  if (values['api-key'] !== undefined) {
    writeLine(context.stderr, `loadfeed: note: a key given as --api-key shows in the process list; ${ENV_API_KEY} keeps it out`);
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}
