// What the `loadfeed` commands share: their shape, strict flag parsing, where the deployment and the key
// come from, and the two failures a command raises on purpose (usage: exit 2, anything else: exit 1).
import { constants } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { API_KEY_PREFIX } from '@loadfeed/spec';

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

/** The exit codes, as policy in one place. */
export const EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** 128 + SIGINT, what shells report for a Ctrl-C (a SIGTERM gives 128 + 15). */
  interrupted: 128 + constants.signals.SIGINT,
} as const;

/** A failure the user can act on: one line on stderr, exit code 1. */
export class CliError extends Error {
  readonly exitCode: number = EXIT_CODES.failure;
  override name = 'CliError';
}

/** A command line that does not parse: one line with a pointer to `--help`, exit code 2. */
export class UsageError extends CliError {
  override readonly exitCode = EXIT_CODES.usage;
  override name = 'UsageError';
  constructor(message: string, commandName: string) {
    super(`${message} (see \`loadfeed ${commandName ? `${commandName} ` : ''}--help\`)`);
  }
}

/** Ctrl-C or SIGTERM: the command stopped where it was asked to, with everything saved; exit 128 + the signal's number. */
export class Interrupted extends CliError {
  override readonly exitCode: number;
  override name = 'Interrupted';
  constructor(message: string, signal: unknown) {
    super(message);
    this.exitCode = signal === 'SIGTERM' ? 128 + constants.signals.SIGTERM : EXIT_CODES.interrupted;
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

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs gives for one flag: a boolean, a string, or every string of a repeatable flag. */
type FlagValue<T> = T extends { type: 'boolean' } ? boolean : T extends { multiple: true } ? string[] : string;
export type FlagValues<O extends FlagOptions> = { [K in keyof O]?: FlagValue<O[K]> };

/** Parses flags strictly: an unknown flag, a missing value or a stray argument is a UsageError. */
export function parseFlags<const O extends FlagOptions>(commandName: string, args: string[], options: O): FlagValues<O> {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseErrorMessage(error), commandName);
  }
  const [stray] = parsed.positionals;
  if (stray !== undefined) {
    // Never echo something that may be a key.
    const shown = looksLikeKey(stray) ? `(a value that looks like an API key: set ${ENV_API_KEY} instead)` : JSON.stringify(stray);
    throw new UsageError(`unexpected argument ${shown}`, commandName);
  }
  return parsed.values as FlagValues<O>;
}

function parseErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  // node's messages run on with advice; their first sentence says what is wrong.
  return message.split(/\.\s/)[0]!.replace(/\.$/, '').replace(/^Option '([^']+)'/, 'option $1');
}

export function looksLikeKey(text: string): boolean {
  return text.toLowerCase().startsWith(API_KEY_PREFIX);
}

/** A whole number of at least 1 from a flag, or a UsageError naming the flag. */
export function positiveInteger(value: string | undefined, flag: string, commandName: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be a whole number of at least 1 (got ${JSON.stringify(value)})`, commandName);
  }
  return Number(value);
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

export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}
