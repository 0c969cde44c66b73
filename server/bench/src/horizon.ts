// `npm run bench:horizon -w @loadfeed/server`: what the settled feed costs, measured side by side in one
// run on a database of its own (DECISIONS.md, the settled feed). Not part of `npm test`.
//
// 1. A request's database work with and without the horizon, from 8 concurrent connections: the
//    admission (admit_request: key lookup, rate-limit count, horizon) and page 1 with its count kept,
//    against the same with a copy of admit_request that skips the horizon, made in the bench database.
//    Throughput ratio; and the median round trip of the horizon alone against `SELECT 1`.
// 2. Horizon lag (now - horizon) sampled every 5 ms while 4 writers commit short transactions to the
//    same customer as fast as they can: p50, p99, max.
// 3. The horizon while another session holds 5,000 advisory locks of its own, 8 connections at once.
// 4. A bulk writer: one transaction inserting 100,000 loads of 20,000 customers, rows/s against the same
//    statement with the feed's triggers disabled; and the lag of a customer it does not write, sampled
//    every 5 ms while it runs, beside the same for a writer of 10 customers (100,000 loads).
//
// Environment: BENCH_DATABASE_URL's server (else TEST_DATABASE_URL/DATABASE_URL's, else embedded),
// BENCH_SECONDS (5 per measured run), BENCH_ROUNDS (3 alternating rounds).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { LAST_USED_RESOLUTION_MS } from '../../dist/admission/credentials.js';
import { hashKey } from '../../dist/admission/key-format.js';
import { createPool } from '../../dist/db/pool.js';
import { migrate } from '../../dist/db/migrate.js';
import { FEED_TRIGGERS } from '../../dist/db/settled-feed-check.js';
import { createKey } from '../../dist/admission/keys.js';
import { choosePageStatement, feedParameters } from '../../dist/loads/list.js';
import { COUNT_SQL } from '../../dist/loads/list-statements.js';
import { seedDatabase } from '../../dist/seed/seed.js';
import { openBenchDatabase } from './database.js';
import { feedWindowStart, RATE_WINDOW_MS } from '@loadfeed/spec';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 8;
const WRITERS = 4;
const UNLIMITED = 2_000_000_000;
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

const percentile = (sorted: number[], share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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
  const customer = seeded.customers[0]!;
  const { key } = await createKey(pool, customer.code, { rateLimit: UNLIMITED });
  const customerId = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [customer.code])).rows[0]!.id;
  const windowStart = feedWindowStart(new Date());
  const filters = { page: 1, pageSize: 100 };

  // admit_request without its last steps: the baseline that does everything but fix the settled state
  // (the horizon, from the stored reading or a fresh one, and the feed version after it); its key lookup
  // still joins the version and the stored reading. A body that no longer holds those steps where this
  // expects them stops the run, so that the baseline can never quietly be the server's own function.
  const SETTLED_FROM = 'customer_slot := feed_writer_slot(customer_id);';
  const SETTLED_UNTIL = '\nEND';
  const { rows: source } = await pool.query<{ body: string }>(
    "SELECT pg_get_functiondef(p.oid) AS body FROM pg_proc AS p WHERE p.proname = 'admit_request' AND p.prokind = 'p' AND p.pronamespace = current_schema()::regnamespace",
  );
  const body = source[0]!.body;
  const [from, until] = [body.indexOf(SETTLED_FROM), body.lastIndexOf(SETTLED_UNTIL)];
  if (from < 0 || until < from) throw new Error('bench:horizon: admit_request no longer fixes the settled state where this baseline expects');
  await pool.query(
    `${body.slice(0, from)}settled_through := clock_timestamp(); feed_version := 0;\n  ${body.slice(until)}`.replace('PROCEDURE public.admit_request(', 'PROCEDURE public.admit_request_unsettled('),
  );
  const admit = (horizon: boolean) =>
    `CALL ${horizon ? 'admit_request' : 'admit_request_unsettled'}($1::bytea, $2::integer, $3::interval, $4::interval${', NULL'.repeat(11)})`;
  const keyHash = hashKey(key);
  const count = Number(
    (await pool.query<{ total_count: string }>(COUNT_SQL, feedParameters({ customerId, windowStart, settledThrough: new Date().toISOString() }, filters))).rows[0]!.total_count,
  );

  /** One request's database work: admission, then page 1 with its count kept, as the server does. */
  async function request(horizon: boolean): Promise<number> {
    const started = performance.now();
    const admitted = (await pool.query<{ settled_through: Date }>(admit(horizon), [keyHash, UNLIMITED, `${RATE_WINDOW_MS} milliseconds`, `${LAST_USED_RESOLUTION_MS} milliseconds`])).rows[0]!;
    const took = performance.now() - started;
    const { sql, values } = choosePageStatement({ customerId, windowStart, settledThrough: admitted.settled_through.toISOString() }, filters, count);
    await pool.query(sql, values);
    return took;
  }

  async function throughput(horizon: boolean): Promise<{ perSecond: number; admissionMs: number[] }> {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    const admissionMs: number[] = [];
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          admissionMs.push(await request(horizon));
          done += 1;
        }
      }),
    );
    return { perSecond: done / SECONDS, admissionMs };
  }

  log('loadfeed settled-feed benchmark');
  log(`  ${seeded.customers[0]!.loads} loads for the measured customer; ${CONNECTIONS} connections, ${SECONDS} s runs, median of ${ROUNDS} alternating rounds`);
  await throughput(true);
  const without: number[] = [];
  const withHorizon: number[] = [];
  const admission: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const plain = await throughput(false);
    without.push(plain.perSecond);
    admission.without.push(...plain.admissionMs);
    const settled = await throughput(true);
    withHorizon.push(settled.perSecond);
    admission.with.push(...settled.admissionMs);
  }
  // The horizon alone, one statement after another on an otherwise idle connection.
  const alone: Record<'horizon' | 'one', number[]> = { horizon: [], one: [] };
  for (let index = 0; index < 2_000; index++) {
    for (const [label, sql] of [['one', 'SELECT 1'], ['horizon', 'SELECT feed_settled_through($1::bigint)']] as const) {
      const started = performance.now();
      await pool.query(sql, label === 'one' ? [] : [customerId]);
      alone[label].push(performance.now() - started);
    }
  }
  const [before, after] = [median(without), median(withHorizon)];
  const ms = (values: number[]) => `${median(values).toFixed(3)} ms`;
  log();
  log('| request work: admission (key, rate-limit count[, horizon]) + page 1, count kept | requests/s | admission median |');
  log('|---|---:|---:|');
  log(`| without the horizon | ${before.toFixed(0)} | ${ms(admission.without)} |`);
  log(`| with the horizon (the server's admit_request) | ${after.toFixed(0)} | ${ms(admission.with)} |`);
  log(`| ratio with / without (goal >= 0.95) | ${(after / before).toFixed(2)} | |`);
  log();
  log(`horizon alone, one connection: ${ms(alone.horizon)} against ${ms(alone.one)} for SELECT 1 (added: ${(median(alone.horizon) - median(alone.one)).toFixed(3)} ms; goal <= 0.2 ms)`);

  // Lag under a steady write load of short transactions to the measured customer.
  const loadNumbers = (await pool.query<{ load_number: string }>('SELECT load_number FROM loads WHERE customer_id = $1::bigint LIMIT 1000', [customerId])).rows.map((row) => row.load_number);
  const stopAt = performance.now() + SECONDS * 1000;
  let commits = 0;
  const writers = Array.from({ length: WRITERS }, async (_, writer) => {
    const client = new pg.Client({ connectionString: url.toString() });
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
    const { rows } = await pool.query<{ lag_ms: number }>(
      'SELECT extract(epoch FROM clock_timestamp() - feed_settled_through($1::bigint)) * 1000 AS lag_ms',
      [customerId],
    );
    lags.push(Number(rows[0]!.lag_ms));
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

  // 3. Another application's locks: pg_locks then has 5,000 more rows to read.
  const holder = new pg.Client({ connectionString: url.toString() });
  await holder.connect();
  await holder.query('SELECT count(pg_advisory_lock(k)) FROM generate_series(1::bigint, 5000::bigint) AS k');
  // Requests of 8 connections at once, as an instance serves them: the horizon's statement against SELECT 1.
  async function callsOf(sql: string, values: unknown[]): Promise<number[]> {
    const took: number[] = [];
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await pool.query(sql, values);
          took.push(performance.now() - started);
        }
      }),
    );
    return took.sort((a, b) => a - b);
  }
  const crowdedOne = await callsOf('SELECT 1', []);
  const crowdedHorizon = await callsOf('SELECT feed_settled_through($1::bigint)', [customerId]);
  await holder.end();
  log();
  log(`| ${CONNECTIONS} connections at once, 5,000 other advisory locks held | calls | median | p90 | p99 |`);
  log('|---|---:|---:|---:|---:|');
  for (const [label, took] of [['SELECT 1', crowdedOne], ['the horizon', crowdedHorizon]] as const) {
    log(`| ${label} | ${took.length} | ${percentile(took, 0.5).toFixed(3)} ms | ${percentile(took, 0.9).toFixed(3)} ms | ${percentile(took, 0.99).toFixed(3)} ms |`);
  }
  log(`| added median (goal <= 0.5 ms) | | ${(percentile(crowdedHorizon, 0.5) - percentile(crowdedOne, 0.5)).toFixed(3)} ms | | |`);

  // 4. A bulk writer of 20,000 customers, with and without the feed's triggers.
  const BULK_CUSTOMERS = 20_000;
  const BULK_LOADS = 100_000;
  await pool.query(`INSERT INTO customers (code, name) SELECT 'bulk' || g, 'Bulk ' || g FROM generate_series(1, $1::integer) AS g`, [BULK_CUSTOMERS]);
  const untouchedId = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [seeded.customers[1]!.code])).rows[0]!.id;
  const bulkInsert = (customers: number) => `
    INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, miles)
    SELECT c.id, 'BULK-' || c.id || '-' || k, 'Available', now() - interval '1 day', 100 + k
      FROM (SELECT id FROM customers WHERE code LIKE 'bulk%' ORDER BY id LIMIT ${customers}) AS c,
           generate_series(1, ${BULK_LOADS} / ${customers}) AS k`;
  // The triggers a row write fires (a TRUNCATE's is left as it is).
  const ROW_TRIGGERS = FEED_TRIGGERS.filter((trigger) => trigger !== 'loads_bump_feed_versions_truncated');
  async function bulkRun(customers: number, triggers: boolean): Promise<{ rowsPerSecond: number; lags: number[] }> {
    const writer = new pg.Client({ connectionString: url.toString() });
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
          const { rows } = await pool.query<{ lag_ms: number }>('SELECT extract(epoch FROM clock_timestamp() - feed_settled_through($1::bigint)) * 1000 AS lag_ms', [untouchedId]);
          lags.push(Number(rows[0]!.lag_ms));
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
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  await bench.stop();
}
