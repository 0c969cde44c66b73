// A seeded load's history: the updatedAt it would carry had the feed followed it, so that a new feed
// looks like a real one (distinct stamps over months, and a nightly batch that touches many loads at
// one instant) rather than one bulk load at one instant. Past stamps are taken only for a customer no
// key can read yet (migrations/0006_settled-feed.sql); for any other they are left as written.
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

const BACKDATE_SQL = `
UPDATE loads AS l SET updated_at = h.updated_at
  FROM jsonb_to_recordset($2::jsonb) AS h("loadNumber" text, updated_at timestamptz)
 WHERE l.customer_id = $1::bigint AND l.load_number = h."loadNumber"`;

/** Gives the customer's loads their history stamps, in one transaction; returns the rows given one. */
export async function backdateLoads(pool: pg.Pool, customerId: string, stamps: ReadonlyMap<string, string>): Promise<number> {
  const history = [...stamps].map(([loadNumber, updatedAt]) => ({ loadNumber, updated_at: updatedAt }));
  return withTransaction(pool, async (client) => {
    await client.query(`SELECT set_config('loadfeed.backdating_customer', $1::text, true)`, [customerId]);
    return (await client.query(BACKDATE_SQL, [customerId, JSON.stringify(history)])).rowCount ?? 0;
  });
}
