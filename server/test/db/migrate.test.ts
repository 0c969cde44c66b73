import { LOAD_STATUSES } from '@loadfeed/spec';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

describe('migrations', () => {
  const database = useTestDatabase();

  it('run once when several instances start at the same time, and are idempotent after', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => migrate(database.url)));
    const applied = runs.flat();
    expect(new Set(applied).size).toBe(applied.length);
    expect(applied.length).toBeGreaterThanOrEqual(3);
    expect(await migrate(database.url)).toEqual([]);
  });

  it('give the status type exactly the contract\'s statuses, in its order', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ label: string }>(
        "SELECT enumlabel AS label FROM pg_enum WHERE enumtypid = 'load_status'::regtype ORDER BY enumsortorder",
      );
      expect(rows.map((row) => row.label)).toEqual([...LOAD_STATUSES]);
    } finally {
      await client.end();
    }
  });
});
