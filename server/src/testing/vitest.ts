// Vitest glue for the throwaway databases: a global setup that starts one PostgreSQL server for a
// test run, and `useTestDatabase()` that gives each test file a database of its own and drops it after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { createTestDatabase, startTestPostgres, type TestDatabase } from './index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    loadfeedAdminDatabaseUrl: string;
  }
}

/** Use as a vitest `globalSetup` module: `export { setup } from '@loadfeed/server/testing/vitest'`. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startTestPostgres();
  project.provide('loadfeedAdminDatabaseUrl', postgres.adminUrl);
  return () => postgres.stop();
}

/** A database for this test file: created before its tests, dropped after them. Read `.url` inside a test or hook. */
export function useTestDatabase(): { readonly url: string; readonly name: string } {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(inject('loadfeedAdminDatabaseUrl'));
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get url() {
      if (!database) throw new Error('useTestDatabase(): the database exists only inside tests and hooks');
      return database.url;
    },
    get name() {
      if (!database) throw new Error('useTestDatabase(): the database exists only inside tests and hooks');
      return database.name;
    },
  };
}

/** An empty temporary folder for this test file, removed after it. Read `.path` inside a test or hook. */
export function useScratchFolder(prefix = 'loadfeed-test-'): { readonly path: string } {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (path) await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      if (!path) throw new Error('useScratchFolder(): the folder exists only inside tests and hooks');
      return path;
    },
  };
}
