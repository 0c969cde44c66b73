import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, startTestPostgres } from '../../src/testing/index.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the test database helper', () => {
  const database = useTestDatabase();

  it('hands this file an empty database of its own', async () => {
    const { rows } = await query(database.url, 'SELECT current_database() AS name, count(*)::int AS tables FROM pg_tables WHERE schemaname = current_schema()');
    expect(rows[0]).toEqual({ name: database.name, tables: 0 });
  });

  it('starts an embedded PostgreSQL when no DATABASE_URL is set, and drops what it created', async () => {
    const postgres = await startTestPostgres({});
    try {
      expect(postgres.adminUrl).toMatch(/^postgres:\/\/postgres:.+@127\.0\.0\.1:\d+\/postgres$/);
      const created = await createTestDatabase(postgres.adminUrl);
      await query(created.url, 'CREATE TABLE t (id int)');
      await created.drop();
      const { rows } = await query(postgres.adminUrl, `SELECT count(*)::int AS n FROM pg_database WHERE datname = '${created.name}'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await postgres.stop();
    }
  }, 120_000);
});
