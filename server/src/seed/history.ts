// A seeded load's history: the updatedAt it would carry had the feed followed it, so that a new feed
// looks like a real one (distinct stamps over months, and a nightly batch that touches many loads at
// one instant) rather than one bulk load at one instant. Past stamps are given only to a customer no key
// can read yet, so that no client holds a cursor past them; for any other the loads keep the stamps they
// were written with.
import type pg from 'pg';
import { withTransaction } from '../db/pool.js';
import { seedFromText } from './random.js';
import type { SeedLoad } from './loads.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Loads in one in this many are last touched by the nightly batch, at 02:00:00.000Z. */
const NIGHTLY_BATCH_SHARE = 6;

/** When the load last changed: its last event, a while after it, never later than `asOf`. */
export function historyStampOf(load: SeedLoad, asOf: Date): string {
  const lastEvent = Date.parse(load.actualDeliveryDate ?? load.actualPickupDate ?? load.tenderedDate!);
  const hash = seedFromText(load.loadNumber);
  const touched =
    hash % NIGHTLY_BATCH_SHARE === 0
      ? Math.floor(lastEvent / DAY) * DAY + DAY + 2 * 60 * MINUTE
      : lastEvent + (hash % (36 * 60)) * MINUTE + (hash % 1000);
  return new Date(Math.min(touched, asOf.getTime() - MINUTE)).toISOString();
}

// The stamping trigger (sql/functions/loads_keep_updated_at.sql) gives every write the write's time, so
// it is paused for this one statement, which does its work: it announces the customer as a writer at
// the feed's earliest stamp (holding the customer's whole feed until the transaction commits), and never
// stamps later than now. Pausing the trigger takes a lock of loads that makes other writers wait for this
// transaction, not skip the trigger; only the table's owner may (the role that migrates).
const BACKDATE_SQL = `
WITH announced AS (
  SELECT announce_feed_writer($1::bigint, timestamptz '2020-01-01T00:00:00Z')
)
UPDATE loads AS l SET updated_at = least(date_trunc('milliseconds', h.updated_at), date_trunc('milliseconds', clock_timestamp()))
  FROM jsonb_to_recordset($2::jsonb) AS h("loadNumber" text, updated_at timestamptz), announced
 WHERE l.customer_id = $1::bigint AND l.load_number = h."loadNumber"
   AND NOT EXISTS (SELECT 1 FROM api_keys AS k WHERE k.customer_id = $1::bigint)`;

/** Gives the customer's loads their history stamps, in one transaction; returns the rows given one. */
export async function backdateLoads(pool: pg.Pool, customerId: string, stamps: ReadonlyMap<string, string>): Promise<number> {
  const history = [...stamps].map(([loadNumber, updatedAt]) => ({ loadNumber, updated_at: updatedAt }));
  return withTransaction(pool, async (client) => {
    await client.query('ALTER TABLE loads DISABLE TRIGGER loads_keep_updated_at');
    const { rowCount } = await client.query(BACKDATE_SQL, [customerId, JSON.stringify(history)]);
    // The feed-version bumps are deferred to commit: they fire now, as ALTER TABLE refuses pending
    // events, and the trigger goes back to the mode the server requires (ALWAYS), not the default one.
    await client.query('SET CONSTRAINTS ALL IMMEDIATE');
    await client.query('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at');
    return rowCount ?? 0;
  });
}
