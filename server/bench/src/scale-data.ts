// The data of `npm run bench:scale`: a customer of 150,000 loads beside one of 1,500,000 in one table,
// made by SQL alone (one INSERT ... SELECT each, a minute or two), kept between runs in a database of its
// own. Pickups spread over the 12-month window and two weeks ahead; statuses follow the dates (a load
// picked up one to three days ago is in transit, an older one completed); each load is stamped at its last
// event (delivery for a past pickup, tendering for a future one), so in-transit loads and last week's
// pickups are the most recently stamped; and one load in six is stamped by last night's batch.
import type pg from 'pg';
import { addCustomer } from '../../dist/customers.js';
import { migrate } from '../../dist/db/migrate.js';

export const SCALE_CUSTOMERS = [
  { code: 'scale-150k', loads: 150_000 },
  { code: 'scale-1500k', loads: 1_500_000 },
] as const;

/**
 * One customer's loads. `u` is a fraction drawn from the load's number by a multiplicative hash, the same
 * on every run. The stamp is written as given: the updatedAt trigger is switched off around this statement
 * (its file re-enables it as ALWAYS), since a benchmark's history cannot be written at today's clock.
 */
const GENERATE_SQL = `
INSERT INTO loads (customer_id, load_number, po_number, billing_ref_number, origin_city, origin_state, origin_zip,
                   destination_city, destination_state, destination_zip, status, scheduled_pickup_date,
                   scheduled_pickup_time, scheduled_delivery_date, tendered_date, miles, total_cost, updated_at)
SELECT c.id, 'L' || n, 'PO-' || n, 'BR-' || (n % 50000), 'Springfield', 'IL', '62701', 'Columbus', 'OH', '43004',
       CASE
         WHEN age < interval '-2 days' THEN (ARRAY['Available', 'Covered']::load_status[])[1 + n % 2]
         WHEN age < interval '0' THEN 'Dispatched'::load_status
         WHEN age < interval '1 day' THEN (ARRAY['Loading', 'InTransit']::load_status[])[1 + n % 2]
         WHEN age < interval '3 days' THEN (CASE WHEN n % 5 = 0 THEN 'Unloading' ELSE 'InTransit' END)::load_status
         WHEN age < interval '10 days' THEN 'Delivered'::load_status
         ELSE (CASE WHEN n % 20 = 0 THEN 'Cancelled' ELSE 'Completed' END)::load_status
       END,
       pick, '08:00', pick + interval '2 days', pick - interval '7 days', 500, 1234.50,
       date_trunc('milliseconds', CASE
         WHEN n % 6 = 0 THEN date_trunc('day', now()) - interval '2 hours'
         WHEN pick > now() THEN now() - u * interval '10 days'
         ELSE least(now() - interval '1 minute' - (n % 3600) * interval '1 second', pick + interval '2 days' + u * interval '3 days')
       END)
  FROM customers AS c, generate_series(1, $2::int) AS n,
       LATERAL (SELECT ((n::bigint * 2654435761) % 1000003) / 1000003.0 AS u) AS draw,
       LATERAL (SELECT date_trunc('day', now()) - interval '358 days' + draw.u * interval '372 days' + (n % 24) * interval '1 hour' AS pick) AS pickup,
       LATERAL (SELECT now() - pickup.pick AS age) AS aged
 WHERE c.code = $1::text`;

/** Migrates, and generates the customers that are not there yet; refreshes statistics and the visibility map. */
export async function prepareScaleData(pool: pg.Pool, url: string, log: (line: string) => void): Promise<void> {
  await migrate(url);
  for (const { code, loads } of SCALE_CUSTOMERS) {
    const { rows } = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM loads AS l JOIN customers AS c ON c.id = l.customer_id WHERE c.code = $1::text', [code]);
    if (Number(rows[0]!.n) >= loads) continue;
    log(`generating ${loads} loads for ${code} (once; later runs reuse them)…`);
    const started = performance.now();
    await pool.query('DELETE FROM loads WHERE customer_id IN (SELECT id FROM customers WHERE code = $1::text)', [code]);
    if (Number((await pool.query('SELECT 1 FROM customers WHERE code = $1::text', [code])).rowCount) === 0) await addCustomer(pool, code);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('ALTER TABLE loads DISABLE TRIGGER loads_keep_updated_at');
      await client.query(GENERATE_SQL, [code, loads]);
      // The feed's deferred triggers (its version) fire now: a table with pending events cannot be altered.
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      await client.query('ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at');
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await pool.query('VACUUM (ANALYZE) loads');
}
