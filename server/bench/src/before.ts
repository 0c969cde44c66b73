// "Today's ours" for the targets: the reference server as it was at an earlier revision, measured
// in the same run as the current one. It is built from git (`git archive`) into server/bench/.before/<rev>
// with that revision's own `npm ci`, so it runs with its own dependencies, migrations and SQL, on a
// database of its own (loadfeed_bench_before) that its own seed code fills with the same generated data.
// Both are kept between runs: the first run with a new revision takes minutes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type pg from 'pg';
import { BENCH_DATA, MEASURED_CUSTOMER, ensureDatabase } from './database.js';

/** The revision the issue "Page throughput" measured as today's server. */
export const DEFAULT_BEFORE_REVISION = '067fa9d';
const BEFORE_DATABASE = 'loadfeed_bench_before';
const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const BUILDS = fileURLToPath(new URL('../.before/', import.meta.url));

export interface BeforeServer {
  revision: string;
  /** Its command line (`node <cli> start`). */
  cli: string;
  databaseUrl: string;
  /** A key of the measured customer on its database, with a limit no run reaches. */
  key: string;
}

interface BeforeModules {
  createPool(url: string, options?: { max?: number }): pg.Pool;
  migrate(url: string): Promise<unknown>;
  seedDatabase(pool: pg.Pool, options: typeof BENCH_DATA & { asOf: Date }): Promise<{ inserted: number }>;
  createKey(pool: pg.Pool, customerCode: string, options: { rateLimit?: number }): Promise<{ key: string }>;
}

/** Builds the revision once (its own npm ci, which also compiles it) and returns its folder. */
function build(revision: string, log: (line: string) => void): string {
  const commit = execFileSync('git', ['-C', REPOSITORY, 'rev-parse', '--short', `${revision}^{commit}`], { encoding: 'utf8' }).trim();
  const folder = join(BUILDS, commit);
  if (existsSync(join(folder, 'server', 'dist', 'cli', 'main.js'))) return folder;
  log(`building the server at ${commit} in ${folder} (once: git archive, npm ci)…`);
  mkdirSync(folder, { recursive: true });
  const archive = execFileSync('git', ['-C', REPOSITORY, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder, stdio: ['ignore', 'ignore', 'inherit'] });
  return folder;
}

async function load<T>(folder: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(folder, 'server', 'dist', path)).href)) as T;
}

/** The earlier server, built, with its database migrated and seeded by its own code and a key issued. */
export async function prepareBefore(revision: string, serverUrl: string, unlimited: number, log: (line: string) => void): Promise<BeforeServer> {
  const folder = build(revision, log);
  const modules: BeforeModules = {
    ...(await load<Pick<BeforeModules, 'createPool'>>(folder, 'db/pool.js')),
    ...(await load<Pick<BeforeModules, 'migrate'>>(folder, 'db/migrate.js')),
    ...(await load<Pick<BeforeModules, 'seedDatabase'>>(folder, 'seed/seed.js')),
    ...(await load<Pick<BeforeModules, 'createKey'>>(folder, 'keys/keys.js')),
  };
  const databaseUrl = await ensureDatabase(serverUrl, BEFORE_DATABASE);
  await modules.migrate(databaseUrl);
  const pool = modules.createPool(databaseUrl, { max: 2 });
  try {
    const { rows } = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM loads');
    if (Number(rows[0]!.n) < BENCH_DATA.loads) {
      log(`seeding ${BENCH_DATA.loads} loads with the code at ${revision} (once; later runs reuse them)…`);
      const today = new Date();
      await modules.seedDatabase(pool, { ...BENCH_DATA, asOf: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())) });
    }
    await pool.query('VACUUM (ANALYZE) loads');
    const { key } = await modules.createKey(pool, MEASURED_CUSTOMER, { rateLimit: unlimited });
    return { revision, cli: join(folder, 'server', 'dist', 'cli', 'main.js'), databaseUrl, key };
  } finally {
    await pool.end();
  }
}
