// Backdating loads in tests, as an operator backfilling history would: the stamping trigger stamps every
// write with the write's time, so it is paused for one statement that sets updated_at itself.
import pg from 'pg';

/** Runs `sql` (which sets loads.updated_at) with the stamping trigger paused, in one transaction. */
export async function restamp(databaseUrl: string, sql: string, params: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('ALTER TABLE loads DISABLE TRIGGER loads_keep_updated_at');
    await client.query(sql, params);
    // The feed-version bumps are deferred to commit: fire them now, as ALTER TABLE refuses pending events,
    // and put the trigger back in the mode the server requires (ALWAYS), not the default one.
    await client.query('SET CONSTRAINTS ALL IMMEDIATE');
    await client.query('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at');
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
