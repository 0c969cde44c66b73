// `@loadfeed/sdk/destinations`: the copies `loadfeed sync` writes and `loadfeed verify` reads, for use from
// code with syncLoads' `destination` and verifyCopy's `copy`; and the one list of them that the command
// line reads (its flags, --help, the failures). Each loads its optional package (pg, better-sqlite3,
// @duckdb/node-api) only when it is opened, so importing this entry installs nothing.
// A destination is one file in ./destinations/ that exports its kind and its open function: list both here.
import { duckdbKind } from './destinations/duckdb.js';
import type { DestinationKind } from './destinations/kind.js';
import { ndjsonKind } from './destinations/ndjson.js';
import { postgresKind } from './destinations/postgres.js';
import { sqliteKind } from './destinations/sqlite.js';

/** Every destination, in the order --help and the usage lines show them. */
export const DESTINATION_KINDS: readonly DestinationKind[] = [ndjsonKind, sqliteKind, postgresKind, duckdbKind];

export { openNdjsonDestination } from './destinations/ndjson.js';
export { openSqliteDestination } from './destinations/sqlite.js';
export { openPostgresDestination, type PostgresDestinationOptions } from './destinations/postgres.js';
export { openDuckdbDestination } from './destinations/duckdb.js';
export { LOAD_COLUMNS, DECIMAL_LOAD_FIELDS, type LoadColumn } from './destinations/load-columns.js';
export type { DestinationKind, OpenOptions, OptionalPackage } from './destinations/kind.js';
export type { CopyDestination, CopyReader, Destination } from './destination.js';
