// @loadfeed/server's root entry. Nothing imports it, not even the operator CLI (bin/loadfeed-server.js loads
// dist/cli/main.js, which imports the modules themselves): what the server does is reached through its
// command, and tests reach it through `@loadfeed/server/testing`. Every name here is deprecated, naming
// what to use; removing them is a major release (CHANGELOG.md, "Version policy").
export {
  /** @deprecated Run `loadfeed-server start`; in tests, `startTestServer` from `@loadfeed/server/testing`. */
  createServer,
  /** @deprecated Run `loadfeed-server start`; in tests, `startTestServer` from `@loadfeed/server/testing`. */
  type Clock,
  /** @deprecated Run `loadfeed-server start`; in tests, `startTestServer` from `@loadfeed/server/testing`. */
  type ServerDeps,
} from './app.js';
export {
  /** @deprecated Set the environment variables `loadfeed-server start --help` lists. */
  loadConfig,
  /** @deprecated Set the environment variables `loadfeed-server start --help` lists; a wrong one makes the command exit 1. */
  ConfigError,
  /** @deprecated Set the environment variables `loadfeed-server start --help` lists. */
  type Config,
  /** @deprecated Set `LOG_LEVEL` (`loadfeed-server start --help`). */
  type LogLevel,
} from './config/load.js';
export {
  /** @deprecated Open your own `pg` pool on `DATABASE_URL`; the server's pool is its own. */
  createPool,
  /** @deprecated Run `BEGIN`/`COMMIT` on a client of your own `pg` pool. */
  withTransaction,
  /** @deprecated Open your own `pg` pool on `DATABASE_URL`; the server's pool is its own. */
  type PoolOptions,
} from './db/pool.js';
export {
  /** @deprecated Run `loadfeed-server migrate` (`start` migrates too). */
  migrate,
  /** @deprecated Run `loadfeed-server migrate` (`start` migrates too). */
  type MigrateOptions,
} from './db/migrate.js';
export {
  /** @deprecated Run `loadfeed-server start`: it keeps the feed index current. */
  keepFeedIndexCurrent,
} from './db/feed-index.js';
export {
  /** @deprecated Run `loadfeed-server start` without `DATABASE_URL`; in tests, `startTestPostgres` from `@loadfeed/server/testing`. */
  startHostedPostgres,
  /** @deprecated Run `loadfeed-server start` without `DATABASE_URL`; in tests, `startTestPostgres` from `@loadfeed/server/testing`. */
  EmbeddedPostgresError,
  /** @deprecated Run `loadfeed-server start` without `DATABASE_URL`; in tests, `startTestPostgres` from `@loadfeed/server/testing`. */
  type HostedPostgres,
} from './db/hosted-postgres.js';
export {
  /** @deprecated Set `LOG_LEVEL` for `loadfeed-server start`, which writes the log. */
  createLogger,
} from './logging.js';
export {
  /** @deprecated Run `loadfeed-server customers add`; in tests, `TestServer.createCustomer` from `@loadfeed/server/testing`. */
  addCustomer,
  /** @deprecated Run `loadfeed-server customers list --json`. */
  listCustomers,
  /** @deprecated Run the `loadfeed-server` command: it reports an operator's mistake on stderr and exits 1. */
  OperatorError,
  /** @deprecated Run `loadfeed-server customers list --json`. */
  type Customer,
} from './customers.js';
export {
  /** @deprecated Run `loadfeed-server keys create`; in tests, `TestServer.createKey` from `@loadfeed/server/testing`. */
  createKey,
  /** @deprecated Run `loadfeed-server keys revoke`; in tests, `TestServer.revokeKey` from `@loadfeed/server/testing`. */
  revokeKey,
  /** @deprecated Run `loadfeed-server keys list --json`. */
  listKeys,
  /** @deprecated Run `loadfeed-server keys create`; in tests, `TestServer.createKey` from `@loadfeed/server/testing`. */
  type IssuedKey,
  /** @deprecated Run `loadfeed-server keys list --json`. */
  type KeyListing,
} from './admission/keys.js';
export {
  /** @deprecated Run `loadfeed-server import`; in tests, `TestServer.importLoads` from `@loadfeed/server/testing`. */
  importLoads,
  /** @deprecated Run `loadfeed-server import`; in tests, `TestServer.importLoads` from `@loadfeed/server/testing`. */
  importLoadLines,
  /** @deprecated Run `loadfeed-server import`: a refused input exits 1 and names every bad line. */
  ImportRejectedError,
  /** @deprecated Run `loadfeed-server import`. */
  type ImportLine,
  /** @deprecated Run `loadfeed-server import` (`--help` lists its flags). */
  type ImportOptions,
  /** @deprecated Run `loadfeed-server import --json`. */
  type ImportOutcome,
  /** @deprecated `ImportSummary` from `@loadfeed/server/testing`, or `loadfeed-server import --json`. */
  type ImportSummary,
  /** @deprecated Run `loadfeed-server import --json`. */
  type ImportProblem,
  /** @deprecated Run `loadfeed-server import --json` (its `notServed`). */
  type NotServed,
  /** @deprecated Run `loadfeed-server import`. */
  type NumberedRow,
} from './loads/import.js';
export type {
  /** @deprecated `LoadInput` from `@loadfeed/spec`. */
  LoadInput,
} from '@loadfeed/spec';
