// The benchmark's database: kept between runs (seeding a million loads takes minutes), on
// BENCH_DATABASE_URL, else a `loadfeed_bench` database on the server TEST_DATABASE_URL or DATABASE_URL
// points at, else an embedded PostgreSQL in server/bench/.data.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate } from '../../dist/db/migrate.js';
import { startHostedPostgres } from '../../dist/db/hosted-postgres.js';
import { generateCustomers } from '../../dist/seed/customers.js';
import { seedDatabase } from '../../dist/seed/seed.js';

const DATABASE_NAME = 'loadfeed_bench';
const EMBEDDED_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** 7 customers of ~157k loads each: 1.1M in all, ~152k of each in the 12-month window. */
export const BENCH_DATA = { seed: 'bench', customers: 7, loads: 1_100_000 } as const;
/** The customer whose feed is measured. */
export const MEASURED_CUSTOMER = generateCustomers(BENCH_DATA.seed, BENCH_DATA.customers)[0]!.code;

export interface BenchDatabase {
  url: string;
  /** Where it lives, for the report. */
  where: string;
  stop(): Promise<void>;
}

export async function openBenchDatabase(env: NodeJS.ProcessEnv): Promise<BenchDatabase> {
  if (env.BENCH_DATABASE_URL) return { url: env.BENCH_DATABASE_URL, where: 'BENCH_DATABASE_URL', stop: async () => {} };
  const server = env.TEST_DATABASE_URL || env.DATABASE_URL;
  if (server) return { url: await ensureDatabase(server), where: `${DATABASE_NAME} on TEST_DATABASE_URL/DATABASE_URL's server`, stop: async () => {} };
  const embedded = await startHostedPostgres(EMBEDDED_DIR);
  return { url: await ensureDatabase(embedded.url), where: `embedded PostgreSQL in ${EMBEDDED_DIR}`, stop: embedded.stop };
}

/** The URL of database `name` on the server `serverUrl` points at, created if it is not there. */
export async function ensureDatabase(serverUrl: string, name: string = DATABASE_NAME): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1::text', [name]);
    // A name of the benchmark's own (letters and underscores), not input: quoted as an identifier anyway.
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Migrates, seeds when the data is not there yet, and refreshes the statistics and visibility map. */
export async function prepareData(pool: pg.Pool, url: string, log: (line: string) => void): Promise<void> {
  await migrate(url);
  const { rows } = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM loads');
  if (Number(rows[0]!.n) < BENCH_DATA.loads) {
    log(`seeding ${BENCH_DATA.loads} loads for ${BENCH_DATA.customers} customers (once; later runs reuse them)…`);
    const started = performance.now();
    const today = new Date();
    const result = await seedDatabase(pool, { ...BENCH_DATA, asOf: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())) });
    log(`  seeded in ${((performance.now() - started) / 1000).toFixed(0)} s: ${result.inserted} inserted, ${result.changed} changed, ${result.unchanged} unchanged`);
  }
  // Index-only scans need an up-to-date visibility map, which a fresh bulk load does not have yet.
  await pool.query('VACUUM (ANALYZE) loads');
}
