// The flags that name a copy, shared by `loadfeed sync` (which writes it) and `loadfeed verify` (which
// reads it): exactly one destination's flag (DESTINATION_KINDS: --out, --sqlite, --postgres, --duckdb), with
// the flags only that destination takes (--state, --table).
import { writeLine, type FlagOptions, type FlagValues } from '@loadfeed/spec/cli';
import { createClient, type LoadfeedClient } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { DESTINATION_KINDS } from '../destinations.js';
import type { DestinationKind } from '../destinations/kind.js';
import { CONNECTION_OPTIONS, UsageError, connectionOf, parseFlags, positiveInteger, type CliContext, type Connection } from './command.js';
import { createProgressView, type ProgressView } from './progress.js';
import { TIMEOUT_OPTION, timeoutMsOf } from './timeout-flag.js';

const extraFlagsOf = (kind: DestinationKind) => Object.entries(kind.extraFlags ?? {});

export const COPY_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(
  DESTINATION_KINDS.flatMap((kind) => [kind.flag, ...extraFlagsOf(kind).map(([flag]) => flag)]).map((flag) => [flag, { type: 'string' }]),
);

const HELP_COLUMN = 23;
/** A flag and its help in two columns; a flag too long for its column gets a line of its own. */
function helpLines(flag: string, value: string, lines: readonly string[]): string {
  const name = `  --${flag} ${value}`;
  const indented = lines.map((line) => ' '.repeat(HELP_COLUMN) + line);
  if (name.length >= HELP_COLUMN) return [name, ...indented].join('\n');
  return [name.padEnd(HELP_COLUMN) + lines[0], ...indented.slice(1)].join('\n');
}

export const COPY_HELP = DESTINATION_KINDS.flatMap((kind) => [
  helpLines(kind.flag, kind.value, kind.help),
  ...extraFlagsOf(kind).map(([flag, extra]) => helpLines(flag, extra.value, extra.help)),
]).join('\n');

/** `(--out <file.ndjson> | --sqlite <file.db> | …)`, for a command's usage line. */
export const COPY_USAGE = `(${DESTINATION_KINDS.map((kind) => `--${kind.flag} ${kind.value}`).join(' | ')})`;

/** `an NDJSON file, SQLite, PostgreSQL or DuckDB`, for a command's summary. */
export const COPY_TITLES = inWords(DESTINATION_KINDS.map((kind) => kind.title));

function inWords(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** Every flag of a command that walks the feed into or against a copy (sync, verify). */
const COPY_COMMAND_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...(COPY_OPTIONS as {}),
  'page-size': { type: 'string' },
  json: { type: 'boolean' },
  // sync's alone: verify only reads.
  'delete-removed': { type: 'boolean' },
  ...TIMEOUT_OPTION,
} as const satisfies FlagOptions;

export interface CopyCommandLine {
  values: FlagValues<typeof COPY_COMMAND_OPTIONS>;
  pageSize: number | undefined;
  connection: Connection;
  /** --timeout as the client's timeoutMs; undefined: the SDK's default. */
  timeoutMs: number | undefined;
}

/** Parses and checks a copy command's flags before anything is opened; undefined once --help is printed. */
export function parseCopyCommandLine(commandName: string, help: string, args: string[], context: CliContext): CopyCommandLine | undefined {
  const values = parseFlags(commandName, args, COPY_COMMAND_OPTIONS);
  if (values.help) {
    writeLine(context.stdout, help);
    return undefined;
  }
  checkCopyFlags(values, commandName);
  if (values['delete-removed'] && commandName !== 'sync') throw new UsageError(`--delete-removed is for loadfeed sync: ${commandName} only reads the copy`, commandName);
  const pageSize = positiveInteger(values['page-size'], '--page-size', commandName);
  const timeoutMs = timeoutMsOf(values.timeout, commandName);
  return { values, pageSize, connection: connectionOf(values, context, commandName), timeoutMs };
}

type CopyValues = Readonly<Record<string, unknown>>;
const given = (values: CopyValues, flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);

/** Checks the copy flags before anything is opened or requested. */
function checkCopyFlags(values: CopyValues, commandName: string): void {
  const chosen = DESTINATION_KINDS.filter((kind) => given(values, kind.flag) !== undefined);
  if (chosen.length !== 1) throw new UsageError(`give exactly one copy: ${inWords(DESTINATION_KINDS.map((kind) => `--${kind.flag} ${kind.value}`))}`, commandName);
  for (const kind of DESTINATION_KINDS) {
    for (const [flag, extra] of extraFlagsOf(kind)) {
      if (given(values, flag) !== undefined && kind !== chosen[0]) throw new UsageError(`--${flag} is for --${kind.flag}${extra.onlyWith ? `: ${extra.onlyWith}` : ''}`, commandName);
    }
  }
}

/** Opens the copy the flags name: for writing (sync) or only reading (verify). */
export async function openCopy(values: CopyValues, context: CliContext, write: boolean): Promise<CopyDestination> {
  const kind = DESTINATION_KINDS.find((candidate) => given(values, candidate.flag) !== undefined)!;
  const extras = Object.fromEntries(extraFlagsOf(kind).map(([flag]) => [flag, given(values, flag)]));
  return kind.open(given(values, kind.flag)!, extras, { write, warn: (line) => writeLine(context.stderr, `loadfeed: ${line}`) });
}

/** The client of a command that shows its progress on stderr; retries show on the view once it is started. */
export function clientWithProgress({ connection, timeoutMs }: Pick<CopyCommandLine, 'connection' | 'timeoutMs'>, context: CliContext): { client: LoadfeedClient; startProgress(): ProgressView } {
  let view: ProgressView | undefined;
  const client = createClient({
    ...connection,
    signal: context.signal,
    userAgent: 'loadfeed-cli',
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    logger: { onRetry: (event) => view?.events.onRetry?.(event) },
  });
  const startProgress = () => (view = createProgressView({ stream: context.stderr, quota: () => client.quota(), now: () => client.clock.now() }));
  return { client, startProgress };
}
