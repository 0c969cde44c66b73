// @loadfeed/server: what the operator CLI and other programs build on.
export { createServer, type Clock, type ServerDeps } from './app.js';
export { loadConfig, ConfigError, type Config, type LogLevel } from './config.js';
export { createPool, withTransaction, type PoolOptions } from './db/pool.js';
export { migrate, type MigrateOptions } from './db/migrate.js';
export { keepFeedIndexCurrent } from './db/feed-index.js';
export { startHostedPostgres, EmbeddedPostgresError, type HostedPostgres } from './db/hosted-postgres.js';
export { createLogger } from './logging.js';
export { addCustomer, listCustomers, OperatorError, type Customer } from './customers/customers.js';
export { createKey, revokeKey, listKeys, type IssuedKey, type KeyListing } from './keys/keys.js';
export {
  importLoads,
  importLoadLines,
  ImportRejectedError,
  type ImportLine,
  type ImportOptions,
  type ImportOutcome,
  type ImportSummary,
  type ImportProblem,
  type NotServed,
  type NumberedRow,
} from './loads/import.js';
export type { LoadInput } from '@loadfeed/spec';
