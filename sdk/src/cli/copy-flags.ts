// The flags that name a copy, shared by `loadfeed sync` (which writes it) and `loadfeed verify` (which
// reads it): exactly one of --out (NDJSON, with --state), --sqlite, --postgres (with --table).
import { writeLine, type FlagOptions, type FlagValues } from '@loadfeed/spec/cli';
import { createClient, type LoadfeedClient } from '../client.js';
import type { CopyDestination } from '../destination.js';
import { CONNECTION_OPTIONS, UsageError, connectionOf, parseFlags, positiveInteger, type CliContext, type Connection } from './command.js';
import { openNdjsonDestination } from './ndjson-destination.js';
import { openPostgresDestination } from './postgres-destination.js';
import { createProgressView, type ProgressView } from './progress.js';
import { openSqliteDestination } from './sqlite-destination.js';
import { TIMEOUT_OPTION, timeoutMsOf } from './timeout-flag.js';

export const COPY_OPTIONS = {
  out: { type: 'string' },
  state: { type: 'string' },
  sqlite: { type: 'string' },
  postgres: { type: 'string' },
  table: { type: 'string' },
} as const satisfies FlagOptions;

export const COPY_HELP = `  --out <file>         An NDJSON file, one line per load (the newest version of each); the cursor
                       in <file>.state.json (or --state <file>)
  --sqlite <file>      A SQLite database: table \`loads\` keyed by "loadNumber", the cursor in table
                       \`loadfeed_sync\` (SQLite built into Node 22.13+, Bun and Deno; on an older Node,
                       the optional package better-sqlite3)
  --postgres <url>     A PostgreSQL database, e.g. postgres://sync@db.internal/warehouse (a password
                       is better in PGPASSWORD or ~/.pgpass): table \`loads\` keyed by load_number,
                       typed columns, the cursor in table \`loadfeed_cursor\` (needs the optional
                       package pg)
  --table <name>       With --postgres: the table (default loads; schema.table works)`;

/** Every flag of a command that walks the feed into or against a copy (sync, verify). */
const COPY_COMMAND_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...COPY_OPTIONS,
  'page-size': { type: 'string' },
  json: { type: 'boolean' },
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
  const pageSize = positiveInteger(values['page-size'], '--page-size', commandName);
  const timeoutMs = timeoutMsOf(values.timeout, commandName);
  return { values, pageSize, connection: connectionOf(values, context, commandName), timeoutMs };
}

/** Where `--out` keeps its cursor unless `--state` says otherwise. */
export const defaultStatePath = (out: string) => `${out}.state.json`;

type CopyValues = { [K in keyof typeof COPY_OPTIONS]?: string | undefined };

/** Checks the copy flags before anything is opened or requested. */
function checkCopyFlags(values: CopyValues, commandName: string): void {
  const given = [values.out, values.sqlite, values.postgres].filter((value) => value !== undefined).length;
  if (given !== 1) throw new UsageError('give exactly one copy: --out <file.ndjson>, --sqlite <file.db> or --postgres <url>', commandName);
  if (values.state !== undefined && values.out === undefined) throw new UsageError('--state is for --out: a database keeps its cursor in itself', commandName);
  if (values.table !== undefined && values.postgres === undefined) throw new UsageError('--table is for --postgres', commandName);
}

/** Opens the copy the flags name: for writing (sync) or only reading (verify). */
export async function openCopy(values: CopyValues, context: CliContext, write: boolean): Promise<CopyDestination> {
  if (values.postgres !== undefined) {
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:[^/@]+@/i.test(values.postgres)) {
      writeLine(context.stderr, 'loadfeed: note: a password in --postgres shows in the process list; PGPASSWORD or ~/.pgpass keeps it out');
    }
    return openPostgresDestination({ connectionString: values.postgres, write, ...(values.table === undefined ? {} : { table: values.table }) });
  }
  if (values.sqlite !== undefined) return openSqliteDestination(values.sqlite, { write });
  return openNdjsonDestination(values.out!, values.state ?? defaultStatePath(values.out!), { write });
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
