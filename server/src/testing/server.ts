// startTestServer: the real reference server on a real database, listening on an ephemeral loopback
// port, for the tests of the SDK, the conformance kit and the examples (notes/TEST-SERVER-API.md).
import type { AddressInfo } from 'node:net';
import { createServer } from '../app.js';
import { loadConfig, poolOptionsOf } from '../config/load.js';
import { addCustomer } from '../customers.js';
import { createPool } from '../db/pool.js';
import { migrate } from '../db/migrate.js';
import { importLoads as importRows, type ImportSummary } from '../loads/import.js';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, type LoadInput } from '@loadfeed/spec';
import { createKey, revokeKey } from '../admission/keys.js';
import { seedCustomerLoads } from '../seed/seed.js';
import { createLogger } from '../logging.js';
import { nextDatabaseMillisecond } from './database-clock.js';

export type { ImportSummary, LoadInput };

export interface TestServerOptions {
  /** e.g. useTestDatabase().url; startTestServer migrates it (idempotent). */
  databaseUrl: string;
  /** The limit of keys without their own; default 10. */
  rateLimitPerMinute?: number;
  /** Default 100, up to 1000. */
  maxPageSize?: number;
  /** The web origins whose pages may call it (CORS_ORIGINS); default none. */
  corsOrigins?: string[];
}

export interface TestServer {
  /** `http://127.0.0.1:<ephemeral port>`, already listening. */
  baseUrl: string;
  createCustomer(code: string, name?: string): Promise<void>;
  createKey(customerCode: string, options?: { rateLimit?: number }): Promise<{ id: string; key: string }>;
  revokeKey(id: string): Promise<void>;
  /**
   * Upserts by loadNumber for that customer through the same code path as `loadfeed-server import`, in
   * one transaction. Each row it inserts or changes is stamped when it is written (ms precision: rows
   * written within one millisecond share a stamp); a row whose values did not change keeps its updatedAt.
   * Resolves once the rows are settled, so that the next request serves them.
   */
  importLoads(customerCode: string, loads: LoadInput[]): Promise<ImportSummary>;
  /**
   * Adds `count` realistic loads with a history of past updatedAt values, as `loadfeed-server seed`
   * does; only for a customer that has no key yet (seed.ts), so call it before createKey.
   */
  seedLoads(customerCode: string, options: { count: number; seed?: string }): Promise<void>;
  /** Stops listening and closes its pool; leaves the database as it is. */
  stop(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  await migrate(options.databaseUrl);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT),
    MAX_PAGE_SIZE: String(options.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE),
    LOG_LEVEL: 'silent',
    DB_POOL_SIZE: '5',
    CORS_ORIGINS: (options.corsOrigins ?? []).join(','),
  });
  const logger = createLogger('silent');
  const pool = createPool(options.databaseUrl, { ...poolOptionsOf(config), onIdleError: (error) => logger.warn({ err: error }, 'idle connection lost') });
  const server = await createServer(config, { pool, logger });
  await server.start();
  const { port } = server.listener.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    createCustomer: async (code, name) => {
      await addCustomer(pool, code, name);
    },
    createKey: async (customerCode, keyOptions) => {
      const { id, key } = await createKey(pool, customerCode, keyOptions);
      return { id, key };
    },
    revokeKey: (id) => revokeKey(pool, id),
    importLoads: async (customerCode, loads) => {
      const summary = await importRows(pool, customerCode, loads.map((value, index) => ({ line: index + 1, value })));
      // A row stamped in this millisecond is past the settled horizon until the database's clock moves on.
      await nextDatabaseMillisecond(pool);
      return summary;
    },
    seedLoads: (customerCode, { count, seed = customerCode }) => seedCustomerLoads(pool, customerCode, { seed, count, asOf: new Date() }),
    stop: async () => {
      await server.stop();
      await pool.end();
    },
  };
}
