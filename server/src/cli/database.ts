// Which database a command talks to, and a pool for the length of one command.
import type pg from 'pg';
import { CliError } from '@loadfeed/spec/cli';
import { ConfigError, loadConfig } from '../config/load.js';
import { createPool } from '../db/pool.js';
import { runningHolderOf } from './data-dir-lock.js';

/** `--database-url` when given, else DATABASE_URL, each checked as the server's configuration checks it. */
export function databaseUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const config = configOf(option === undefined ? env : { ...env, DATABASE_URL: option });
  if (config.databaseUrl) return config.databaseUrl;
  // Beside a running demo (`npm start` without DATABASE_URL), say where its embedded database is.
  const running = runningHolderOf(config.dataDir);
  const beside = running?.databaseUrl
    ? ` (for the embedded PostgreSQL of the loadfeed-server running here, pid ${running.pid}: export DATABASE_URL='${running.databaseUrl}')`
    : '';
  throw new CliError(`no database given: set DATABASE_URL or pass --database-url postgres://…${beside}`);
}

/**
 * Where session-level work goes (migrations hold a session lock, which a transaction-mode pooler cannot
 * keep): `--database-url` when given, else DATABASE_DIRECT_URL, else DATABASE_URL.
 */
export function directDatabaseUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): string {
  if (option !== undefined) return databaseUrlOf(option, env);
  return configOf(env).databaseDirectUrl ?? databaseUrlOf(undefined, env);
}

/** The server's configuration, with a one-line reason when a value is wrong. */
export function configOf(env: NodeJS.ProcessEnv): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(`invalid configuration: ${error.problems.join('; ')}`);
    throw error;
  }
}

/** Runs `work` with a small pool on `databaseUrl` and closes the pool afterwards, whatever happens. */
export async function withPool<T>(databaseUrl: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createPool(databaseUrl, { max: 4 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}
