// What a destination declares once: its flag and --help, the flags only it takes, the optional package it
// needs, how it opens, and how its own errors read. `loadfeed sync` and `loadfeed verify`, their flags,
// the failures and `@loadfeed/sdk/destinations` all read the one list of these (../destinations.ts).
import { CliError } from '@loadfeed/spec/cli';
import type { CopyDestination } from '../destination.js';

export interface OpenOptions {
  /** Create what is missing and lock the copy for writing (sync); false: only read an existing copy (verify). */
  write: boolean;
  /** A note for the person at the terminal (a password in a URL, say); the library passes none. */
  warn?(line: string): void;
}

export interface DestinationKind {
  /** Its flag, without the dashes: `sqlite` for `--sqlite <file.db>`. */
  flag: string;
  /** What the flag takes, as --help and usage lines show it: `<file.db>`. */
  value: string;
  /** How a sentence names it: `SQLite`. */
  title: string;
  /** The lines of --help beside the flag. */
  help: readonly string[];
  /** Flags only this destination takes (`--table` for `--postgres`), each with its help and why it is its alone. */
  extraFlags?: Readonly<Record<string, { value: string; help: readonly string[]; onlyWith?: string }>>;
  /** The optional peer dependency it needs, loaded only when it opens. */
  optionalPackage?: OptionalPackage;
  open(value: string, extras: Readonly<Record<string, string | undefined>>, options: OpenOptions): Promise<CopyDestination>;
  /** One of its own errors (its driver's) as the line `loadfeed` prints; undefined for any other error. */
  describeError?(error: unknown): string | undefined;
}

export interface OptionalPackage {
  name: string;
  /** The version `npm install` is told to take (the one the tests run). */
  version: string;
  /** Said after the install hint when another destination needs nothing: ` (or use --out <file.ndjson>)`. */
  otherwise?: string;
}

/**
 * Imports an optional package, or says in one line how to install it. The specifier is a variable, which
 * keeps TypeScript from requiring the package's types; each destination declares the part it uses.
 */
export async function importOptional<T>(flag: string, { name, version, otherwise = '' }: OptionalPackage): Promise<T> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new CliError(`--${flag} needs the optional package ${name}: run \`npm install ${name}@${version}\`${otherwise}`);
    }
    throw new CliError(`${name} is installed but does not load (${(error as Error).message.split('\n')[0]}): reinstall it for this Node.js`);
  }
}

/** A path that keeps nothing once the process ends (SQLite's and DuckDB's in-memory and temporary databases). */
export function refuseEphemeralPath(flag: string, path: string): void {
  if (path.trim() === '' || path.startsWith(':memory:') || /^file:.*[?&]mode=memory\b/i.test(path)) {
    throw new CliError(`--${flag} ${JSON.stringify(path)} keeps nothing after the run: give the path of a database file`);
  }
}
