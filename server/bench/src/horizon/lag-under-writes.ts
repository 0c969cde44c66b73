// bench:horizon, part 2: the horizon's lag (now - horizon), sampled every 5 ms while 4 writers commit short
// transactions to the same customer as fast as they can: p50, p99, max.
import pg from 'pg';
import { type HorizonBench, lagOf, log, percentile, SECONDS } from './common.js';

const WRITERS = 4;

export async function lagUnderWrites({ pool, url, customerId }: HorizonBench): Promise<void> {
  // Lag under a steady write load of short transactions to the measured customer.
  const loadNumbers = (await pool.query<{ load_number: string }>('SELECT load_number FROM loads WHERE customer_id = $1::bigint LIMIT 1000', [customerId])).rows.map((row) => row.load_number);
  const stopAt = performance.now() + SECONDS * 1000;
  let commits = 0;
  const writers = Array.from({ length: WRITERS }, async (_, writer) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (let index = writer; performance.now() < stopAt; index += WRITERS) {
        await client.query('UPDATE loads SET po_number = $2::text WHERE customer_id = $1::bigint AND load_number = $3::text', [
          customerId,
          `lag-${index}`,
          loadNumbers[index % loadNumbers.length],
        ]);
        commits += 1;
      }
    } finally {
      await client.end();
    }
  });
  const lags: number[] = [];
  while (performance.now() < stopAt) {
    lags.push(await lagOf(pool, customerId));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(writers);
  lags.sort((a, b) => a - b);
  log();
  log(`| horizon lag under ${(commits / SECONDS).toFixed(0)} short write transactions/s to the customer (${lags.length} samples) | ms |`);
  log('|---|---:|');
  log(`| p50 | ${percentile(lags, 0.5).toFixed(2)} |`);
  log(`| p99 (goal <= 100) | ${percentile(lags, 0.99).toFixed(2)} |`);
  log(`| max | ${lags[lags.length - 1]!.toFixed(2)} |`);
}
