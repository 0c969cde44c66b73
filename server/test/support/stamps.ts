// Loads written with the updatedAt stamps a test gives, as an import of history writes them: the stamping
// trigger (sql/functions/loads_keep_updated_at.sql) off for one transaction.
import type pg from 'pg';
import { withTransaction } from '../../src/db/pool.js';

/** Runs `write` in a transaction where the stamping trigger is off, then puts it back as the server requires. */
export async function writeWithStamps(pool: pg.Pool, write: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('ALTER TABLE loads DISABLE TRIGGER loads_keep_updated_at');
    await write(client);
    // The feed-version bumps are deferred to commit: fire them now, as ALTER TABLE refuses pending events,
    // and put the trigger back in the mode the server requires (ALWAYS), not the default one.
    await client.query('SET CONSTRAINTS ALL IMMEDIATE');
    await client.query('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at');
  });
}
