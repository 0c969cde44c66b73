// bench:horizon, part 4: a bulk writer, one transaction inserting 100,000 loads of 20,000 customers, rows/s
// against the same statement with the feed's triggers disabled; and the lag of a customer it does not write,
// sampled every 5 ms while it runs, beside the same for a writer of 10 customers (100,000 loads).
import pg from 'pg';
import { FEED_TRIGGERS } from '../../../dist/db/settled-feed-check.js';
import { type HorizonBench, lagOf, log, percentile } from './common.js';

/** Measures and prints part 4; `untouchedCode` is a customer the bulk writer never writes. */
export async function bulkWriter({ pool, url }: HorizonBench, untouchedCode: string): Promise<void> {
  const BULK_CUSTOMERS = 20_000;
  const BULK_LOADS = 100_000;
  await pool.query(`INSERT INTO customers (code, name) SELECT 'bulk' || g, 'Bulk ' || g FROM generate_series(1, $1::integer) AS g`, [BULK_CUSTOMERS]);
  const untouchedId = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [untouchedCode])).rows[0]!.id;
  const bulkInsert = (customers: number) => `
    INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, miles)
    SELECT c.id, 'BULK-' || c.id || '-' || k, 'Available', now() - interval '1 day', 100 + k
      FROM (SELECT id FROM customers WHERE code LIKE 'bulk%' ORDER BY id LIMIT ${customers}) AS c,
           generate_series(1, ${BULK_LOADS} / ${customers}) AS k`;
  // The triggers a row write fires (a TRUNCATE's is left as it is).
  const ROW_TRIGGERS = FEED_TRIGGERS.filter((trigger) => trigger !== 'loads_bump_feed_versions_truncated');
  async function bulkRun(customers: number, triggers: boolean): Promise<{ rowsPerSecond: number; lags: number[] }> {
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      // A session's first write to loads is several times slower than its next ones, with or without the
      // feed (measured on 0011 too): one load written and rolled back first, so that neither run pays it.
      await writer.query('BEGIN');
      await writer.query(bulkInsert(10).replace(`generate_series(1, ${BULK_LOADS} / 10)`, 'generate_series(1, 1)'));
      await writer.query('ROLLBACK');
      if (!triggers) for (const trigger of ROW_TRIGGERS) await writer.query(`ALTER TABLE loads DISABLE TRIGGER ${trigger}`);
      const lags: number[] = [];
      let writing = true;
      const sampling = (async () => {
        while (writing) {
          lags.push(await lagOf(pool, untouchedId));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const started = performance.now();
      await writer.query('BEGIN');
      await writer.query(bulkInsert(customers));
      await writer.query('COMMIT');
      const seconds = (performance.now() - started) / 1000;
      writing = false;
      await sampling;
      return { rowsPerSecond: BULK_LOADS / seconds, lags: lags.sort((a, b) => a - b) };
    } finally {
      if (!triggers) for (const trigger of ROW_TRIGGERS) await writer.query(`ALTER TABLE loads ENABLE ALWAYS TRIGGER ${trigger}`);
      await writer.query(`DELETE FROM loads WHERE load_number LIKE 'BULK-%'`);
      await writer.end();
    }
  }
  const bare = await bulkRun(BULK_CUSTOMERS, false);
  const fed = await bulkRun(BULK_CUSTOMERS, true);
  const few = await bulkRun(10, true);
  const lagCells = (lags: number[]) => `${percentile(lags, 0.5).toFixed(1)} | ${percentile(lags, 0.99).toFixed(1)} | ${lags[lags.length - 1]!.toFixed(1)}`;
  log();
  log(`| one transaction inserting ${BULK_LOADS.toLocaleString('en')} loads | rows/s | untouched customer's lag p50 / p99 / max (ms) |`);
  log('|---|---:|---|');
  log(`| ${BULK_CUSTOMERS.toLocaleString('en')} customers, the feed's triggers disabled | ${bare.rowsPerSecond.toFixed(0)} | ${lagCells(bare.lags)} |`);
  log(`| ${BULK_CUSTOMERS.toLocaleString('en')} customers, the feed's triggers | ${fed.rowsPerSecond.toFixed(0)} | ${lagCells(fed.lags)} |`);
  log(`| ratio with / without (goal >= 0.5) | ${(fed.rowsPerSecond / bare.rowsPerSecond).toFixed(2)} | |`);
  log(`| 10 customers, the feed's triggers | ${few.rowsPerSecond.toFixed(0)} | ${lagCells(few.lags)} (goal p99 <= 100) |`);
}
