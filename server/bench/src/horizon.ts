// `npm run bench:horizon -w @loadfeed/server`: what the settled feed costs, measured side by side in one
// run on a database of its own (DECISIONS.md, the settled feed). Not part of `npm test`. Four parts, a
// file each under horizon/:
// 1. request-cost.ts: a request's database work with and without the horizon, and the horizon alone.
// 2. lag-under-writes.ts: the horizon's lag while 4 writers commit short transactions to the customer.
// 3. crowded-locks.ts: the horizon while another session holds 5,000 advisory locks.
// 4. bulk-writer.ts: a bulk writer of 20,000 customers with and without the feed's triggers, and the lag
//    of a customer it does not write.
//
// Environment: BENCH_DATABASE_URL's server (else TEST_DATABASE_URL/DATABASE_URL's, else embedded),
// BENCH_SECONDS (5 per measured run), BENCH_ROUNDS (3 alternating rounds).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool } from '../../dist/db/pool.js';
import { migrate } from '../../dist/db/migrate.js';
import { createKey } from '../../dist/admission/keys.js';
import { seedDatabase } from '../../dist/seed/seed.js';
import { openBenchDatabase } from './database.js';
import { bulkWriter } from './horizon/bulk-writer.js';
import { CONNECTIONS, UNLIMITED } from './horizon/common.js';
import { crowdedLocks } from './horizon/crowded-locks.js';
import { lagUnderWrites } from './horizon/lag-under-writes.js';
import { requestCost } from './horizon/request-cost.js';

const bench = await openBenchDatabase(process.env);
const url = new URL(bench.url);
const name = `loadfeed_bench_horizon_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: bench.url });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
url.pathname = `/${name}`;
const pool = createPool(url.toString(), { max: CONNECTIONS + 2 });
try {
  await migrate(url.toString());
  const seeded = await seedDatabase(pool, { seed: 'horizon', customers: 2, loads: 40_000, asOf: new Date() });
  await pool.query('VACUUM (ANALYZE) loads');
  const [measured, untouched] = [seeded.customers[0]!, seeded.customers[1]!];
  const { key } = await createKey(pool, measured.code, { rateLimit: UNLIMITED });
  const customerId = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [measured.code])).rows[0]!.id;
  const context = { pool, url: url.toString(), customerId };
  await requestCost(context, key, measured.loads);
  await lagUnderWrites(context);
  await crowdedLocks(context);
  await bulkWriter(context, untouched.code);
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  await bench.stop();
}
