// `@loadfeed/sdk/destinations`: the copies `loadfeed sync` writes and `loadfeed verify` reads, for use from
// code with syncLoads' `destination` and verifyCopy's `copy`. Each loads its optional package (pg,
// better-sqlite3) only when it is opened, so importing this entry installs nothing.
export { openPostgresDestination, type PostgresDestinationOptions } from './cli/postgres-destination.js';
export { openSqliteDestination } from './cli/sqlite-destination.js';
export { openNdjsonDestination } from './cli/ndjson-destination.js';
export { LOAD_COLUMNS, DECIMAL_LOAD_FIELDS, type LoadColumn } from './cli/load-columns.js';
export type { CopyDestination, CopyReader, Destination } from './destination.js';
