// Throwaway PostgreSQL databases for tests: the server's, the SDK's, the kit's and the examples'.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startHostedPostgres } from '../db/hosted-postgres.js';

export interface TestPostgres {
  /** A superuser connection string to a maintenance database, used to create and drop test databases. */
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL server tests use: `TEST_DATABASE_URL` or `DATABASE_URL` when set, otherwise an embedded
 * one in a temporary folder that `stop()` removes.
 */
export async function startTestPostgres(env: NodeJS.ProcessEnv = process.env): Promise<TestPostgres> {
  const given = env.TEST_DATABASE_URL || env.DATABASE_URL;
  if (given) return { adminUrl: given, stop: async () => {} };
  const folder = await mkdtemp(join(tmpdir(), 'loadfeed-test-pg-'));
  await chmod(folder, 0o755); // the postgres user must reach the cluster inside it
  const postgres = await startHostedPostgres(join(folder, 'data'));
  return {
    adminUrl: postgres.url,
    stop: async () => {
      await postgres.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export interface TestDatabase {
  /** A connection string to a new, empty database of its own. */
  url: string;
  name: string;
  /** Drops the database, ending any session still connected to it. */
  drop(): Promise<void>;
}

/** Creates an empty database with a unique name on the server `adminUrl` points at. */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `loadfeed_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export { startTestServer } from './server.js';
export type { ImportSummary, LoadInput, TestServer, TestServerOptions } from './server.js';
