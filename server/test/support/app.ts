// The fixture most server tests share: a migrated database, a server driven by server.inject(), a
// clock the test moves, and helpers to make customers, keys and loads through the real code paths.
import { Writable } from 'node:stream';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import type pg from 'pg';
import { createServer } from '../../src/app.js';
import { loadConfig, poolOptionsOf, type Config } from '../../src/config/load.js';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { importLoads } from '../../src/loads/import.js';
import type { LoadInput } from '@loadfeed/spec';
import { createLogger } from '../../src/logging.js';
import type { Metrics } from '../../src/metrics.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';

export interface TestClock {
  (): Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function testClock(start: Date | string = '2026-06-15T12:00:00.000Z'): TestClock {
  let now = new Date(start).getTime();
  const clock = (() => new Date(now)) as TestClock;
  clock.set = (at) => {
    now = new Date(at).getTime();
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface AppOptions {
  clock?: TestClock;
  env?: Record<string, string>;
  metrics?: Metrics;
}

export interface TestApp {
  server: Server;
  pool: pg.Pool;
  clock: TestClock;
  config: Config;
  /** Every log line the server wrote, parsed. */
  logLines: string[];
  customer(code: string): Promise<string>;
  key(customerCode: string, options?: { rateLimit?: number }): Promise<{ id: string; key: string }>;
  load(customerCode: string, loads: LoadInput[]): ReturnType<typeof importLoads>;
  get(url: string, key?: string, headers?: Record<string, string>): Promise<ServerInjectResponse>;
  close(): Promise<void>;
}

export async function startApp(databaseUrl: string, { clock = testClock(), env = {}, metrics }: AppOptions = {}): Promise<TestApp> {
  await migrate(databaseUrl);
  // Keys get a limit no test reaches unless the test is about the limit.
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', DB_POOL_SIZE: '4', ...env });
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger(config.logLevel, destination);
  const pool = createPool(databaseUrl, poolOptionsOf(config));
  const server = await createServer(config, { pool, logger, clock, ...(metrics ? { metrics } : {}) });
  return {
    server,
    pool,
    clock,
    config,
    logLines,
    async customer(code) {
      await addCustomer(pool, code);
      return code;
    },
    key: (customerCode, options) => createKey(pool, customerCode, options),
    // Resolves once the rows are settled: a row stamped in this millisecond is past the horizon until the
    // database's clock moves on.
    load: async (customerCode, loads) => {
      const summary = await importLoads(pool, customerCode, loads.map((value, index) => ({ line: index + 1, value })));
      await nextDatabaseMillisecond(pool);
      return summary;
    },
    get: (url, key, headers = {}) =>
      server.inject({ method: 'GET', url, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } }),
    async close() {
      await server.stop();
      await pool.end();
    },
  };
}

/** A response as @loadfeed/spec's checkResponse takes it. */
export function asChecked(response: ServerInjectResponse): { status: number; headers: Record<string, string | string[] | undefined>; body: unknown } {
  return {
    status: response.statusCode,
    headers: response.headers as Record<string, string | string[] | undefined>,
    body: response.payload === '' ? undefined : (JSON.parse(response.payload) as unknown),
  };
}

/** A load that is inside the feed window of the default test clock, with the given fields. */
export function aLoad(loadNumber: string, fields: Partial<LoadInput> = {}): LoadInput {
  return { loadNumber, status: 'Available', scheduledPickupDate: '2026-06-01T08:00:00.000Z', ...fields };
}

/** An app with one customer (`acme`) and a key of it: the start of most HTTP tests. */
export async function startAppWithKey(databaseUrl: string, options: AppOptions = {}): Promise<{ app: TestApp; key: string }> {
  const app = await startApp(databaseUrl, options);
  await app.customer('acme');
  return { app, key: (await app.key('acme')).key };
}
