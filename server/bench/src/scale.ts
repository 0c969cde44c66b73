// `npm run bench:scale -w @loadfeed/server`: the feed at a big shipper's size (issue "The feed at a big
// shipper's size"). A customer of 150,000 loads beside one of 1,500,000 in one table (scale-data.ts); for
// each request of scale-queries.ts, ours and the JSON-in-SQL peer of the page benchmark (same table, same
// indexes) under load, and the growth from the small customer to the big one; then the big customer's
// page 1 and a filtered page while a writer changes one of its loads 1 and 10 times a second; then the
// database time of the statements ours runs without a kept count, today's and the release before's (every
// filter through the feed index, the filter indexes dropped in a transaction that is rolled back); then
// the database time of the count alone, by the rows and by the counters, where the counters answer.
//
// Environment: BENCH_SCALE_DATABASE_URL (else a `loadfeed_scale` database on TEST_DATABASE_URL's or
// DATABASE_URL's server, else embedded), BENCH_SECONDS (4 per measured run), BENCH_ROUNDS (1),
// BENCH_WARMUP_REQUESTS (200, set by the npm script), BENCH_SCALE_PARTS (table,writes,statements,counts,copy:
// which to run; copy is the SDK's first copy of each customer, scale-first-copy.ts, BENCH_ROUNDS times).
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { startHostedPostgres } from '../../dist/db/hosted-postgres.js';
import { createPool } from '../../dist/db/pool.js';
import { createKey } from '../../dist/admission/keys.js';
import { COUNTERS_COUNT_SQL, countedByCounters } from '../../dist/loads/count-statements.js';
import { COUNT_SQL } from '../../dist/loads/list-statements.js';
import { feedParameters } from '../../dist/loads/list.js';
import { ensureDatabase } from './database.js';
import { CONNECTIONS, measureLoad, medianResult, type LoadResult } from './load.js';
import { postgresCpuMs, startServerProcess } from './processes.js';
import { row } from './report.js';
import { reportFirstCopies } from './scale-first-copy.js';
import { prepareScaleData, SCALE_CUSTOMERS } from './scale-data.js';
import { pageOf, queryString, scaleQueries, scopeOf, statementsOf } from './scale-queries.js';
import { databaseTime } from './sweep.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const JSON_IN_SQL = fileURLToPath(new URL('./json-in-sql-server.js', import.meta.url));
const EMBEDDED_DIR = fileURLToPath(new URL('../.data-scale', import.meta.url));
const UNLIMITED = 2_000_000_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** The filter indexes, by name or (the status index's name carries its cutoff) by its pattern. */
const FILTER_INDEXES = ['loads_feed\\_status\\_%', 'loads_feed_pickup_day', 'loads_feed_delivery_day'];
const log = (line = ''): void => void process.stdout.write(`${line}\n`);
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? 'table,writes,statements,counts,copy').split(','));

const serverUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
const embedded = process.env.BENCH_SCALE_DATABASE_URL || serverUrl ? undefined : await startHostedPostgres(EMBEDDED_DIR);
const url = process.env.BENCH_SCALE_DATABASE_URL ?? (await ensureDatabase(serverUrl ?? embedded!.url, 'loadfeed_scale'));
const pool = createPool(url, { max: 2 });
try {
  const loadAverage = loadavg()[0]!;
  await prepareScaleData(pool, url, log);
  const now = new Date();
  const queries = scaleQueries(now);
  const customers = [];
  for (const { code } of SCALE_CUSTOMERS) {
    const id = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [code])).rows[0]!.id;
    const scope = scopeOf(id, now);
    const counts = [];
    for (const query of queries) {
      const [feed] = feedParameters(scope, { ...query.filters, page: 1, pageSize: query.pageSize });
      counts.push(Number((await pool.query<{ total_count: string }>(COUNT_SQL, [feed])).rows[0]!.total_count));
    }
    customers.push({ code, id, scope, counts, key: (await createKey(pool, code, { rateLimit: UNLIMITED })).key });
  }
  const env = { DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn', MAX_PAGE_SIZE: '1000' };
  const servers = [
    { name: 'ours', script: CLI, args: ['start'] },
    { name: 'JSON in SQL', script: JSON_IN_SQL, args: [] },
  ];
  log('loadfeed scale benchmark');
  log(`  machine: ${cpus().length} CPU cores shared with other work (1-minute load average ${loadAverage.toFixed(1)} at start)`);
  log(`  data: ${SCALE_CUSTOMERS.map(({ code, loads }) => `${code} (${loads} loads)`).join(' beside ')} in one table; MAX_PAGE_SIZE=1000`);
  log(`  load: autocannon, ${CONNECTIONS} connections, ${seconds} s per run after a warm-up, median of ${ROUNDS} round(s); servers alternate`);
  log();

  // Per customer and query, each server's result.
  const results = new Map<string, LoadResult[]>();
  for (let round = 0; round < (PARTS.has('table') ? ROUNDS : 0); round++) {
    for (const customer of customers) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const running = await startServerProcess(server.script, server.args, env);
        try {
          for (const [index, query] of queries.entries()) {
            const path = `${running.baseUrl}${LIST_LOADS_PATH}?${queryString(query, pageOf(query, customer.counts[index]!))}`;
            const result = await measureLoad(path, customer.key, { server: running.cpuMs, database: postgresCpuMs }, { seconds, warmupSeconds: 1 });
            if (result.failures > 0) log(`  warning: ${server.name} had ${result.failures} failed requests at ${query.label} (${customer.code})`);
            const key = `${customer.code}|${query.label}|${server.name}`;
            results.set(key, [...(results.get(key) ?? []), result]);
          }
        } finally {
          await running.stop();
        }
      }
    }
  }
  const [small, big] = customers;
  const widths = [32, 9, 22, 22, 8, 22, 22];
  log(row(['request (matches 150k / 1.5M)', 'server', '150k: req/s, p50/p99', '1.5M: req/s, p50/p99', 'growth', 'ours / peer at 1.5M', ''], widths));
  const cell = (result: LoadResult) => `${result.requestsPerSecond.toFixed(0)}, ${result.p50Ms.toFixed(0)}/${result.p99Ms.toFixed(0)}`;
  for (const [index, query] of PARTS.has('table') ? queries.entries() : []) {
    for (const { name } of servers) {
      const at = (customer: typeof small) => medianResult(results.get(`${customer!.code}|${query.label}|${name}`)!);
      const peer = medianResult(results.get(`${big!.code}|${query.label}|JSON in SQL`)!);
      const label = name === 'ours' ? `${query.label} (${small!.counts[index]} / ${big!.counts[index]})` : '';
      const ratio = name === 'ours' ? `${(at(big).requestsPerSecond / peer.requestsPerSecond).toFixed(2)}x` : '';
      log(row([label, name, cell(at(small)), cell(at(big)), `${(at(small).requestsPerSecond / at(big).requestsPerSecond).toFixed(2)}x`, ratio, ''], widths));
    }
  }
  log('  (growth: requests/s at 150k / at 1.5M; 1.00x is no growth)');
  log();

  if (PARTS.has('writes')) await underWrites(big!, queries.filter((query) => query.label === 'page 1' || query.label === 'a pickup week' || query.label === 'status=InTransit'), env);
  if (PARTS.has('statements')) await statementTimes(customers, queries);
  if (PARTS.has('counts')) await countTimes(customers, queries);
  if (PARTS.has('copy')) await reportFirstCopies(customers, url, CLI, env, ROUNDS, log);
  log(`1-minute load average at the end: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await pool.end();
  await embedded?.stop();
}

/** Ours at the big customer while a writer changes one of its loads `rate` times a second. */
async function underWrites(customer: { code: string; id: string; key: string }, measured: ReturnType<typeof scaleQueries>, env: NodeJS.ProcessEnv): Promise<void> {
  log(row(['under writes to the customer (1.5M)', '0 writes/s', '1 write/s', '10 writes/s', '1/s ratio', '10/s ratio'], [36, 16, 16, 16, 10, 10]));
  const running = await startServerProcess(CLI, ['start'], env);
  const writer = createPool(url, { max: 2 });
  try {
    for (const query of measured) {
      const byRate: LoadResult[] = [];
      for (const rate of [0, 1, 10]) {
        let written = 0;
        const timer = rate === 0 ? undefined : setInterval(() => {
          written += 1;
          writer.query("UPDATE loads SET total_cost = total_cost + 1 WHERE customer_id = $1::bigint AND load_number = 'L' || $2::text", [customer.id, String(1 + ((written * 7919) % 1_500_000))]).catch(() => {});
        }, 1000 / rate);
        try {
          byRate.push(await measureLoad(`${running.baseUrl}${LIST_LOADS_PATH}?${queryString(query, 1)}`, customer.key, { server: running.cpuMs, database: postgresCpuMs }, { seconds, warmupSeconds: 1 }));
        } finally {
          if (timer) clearInterval(timer);
        }
      }
      const shown = byRate.map((result) => `${result.requestsPerSecond.toFixed(0)}, ${result.p50Ms.toFixed(0)}/${result.p99Ms.toFixed(0)}`);
      log(row([`${query.label}: req/s, p50/p99 ms`, ...shown, `${(byRate[1]!.requestsPerSecond / byRate[0]!.requestsPerSecond).toFixed(2)}x`, `${(byRate[2]!.requestsPerSecond / byRate[0]!.requestsPerSecond).toFixed(2)}x`], [36, 16, 16, 16, 10, 10]));
    }
  } finally {
    await writer.end();
    await running.stop();
  }
  log();
}

/** Database time (planning + execution) of what ours runs without a kept count: the release before's statements and indexes, and today's. */
async function statementTimes(customers: { code: string; scope: ReturnType<typeof scopeOf>; counts: number[] }[], queries: ReturnType<typeof scaleQueries>): Promise<void> {
  log(row(['DB ms without a kept count', '150k before', '150k now', '1.5M before', '1.5M now'], [32, 12, 12, 12, 12]));
  const client = await pool.connect();
  try {
    for (const [index, query] of queries.entries()) {
      const times: number[] = [];
      for (const customer of customers) {
        await client.query('BEGIN');
        const { rows: filterIndexes } = await client.query<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE ANY ($1::text[])', [FILTER_INDEXES]);
        for (const { name } of filterIndexes) await client.query(`DROP INDEX ${name}`);
        times.push(await databaseTime(client, statementsOf(query, customer.scope, customer.counts[index]!, true)));
        await client.query('ROLLBACK');
        times.push(await databaseTime(client, statementsOf(query, customer.scope, customer.counts[index]!, false)));
      }
      log(row([query.label, ...times], [32, 12, 12, 12, 12]));
    }
  } finally {
    client.release();
  }
  log();
}

/** Database time of the count alone, counted by the rows (COUNT_SQL) and read from the counters, median of five, for each query the counters answer. */
async function countTimes(customers: { code: string; scope: ReturnType<typeof scopeOf> }[], queries: ReturnType<typeof scaleQueries>): Promise<void> {
  log(row(['DB ms of the count alone', '150k rows', '150k counters', '1.5M rows', '1.5M counters'], [32, 12, 14, 12, 14]));
  const client = await pool.connect();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  try {
    for (const query of queries.filter((each) => !each.last && countedByCounters({ ...each.filters, page: 1, pageSize: each.pageSize }))) {
      const times: string[] = [];
      for (const customer of customers) {
        const values = feedParameters(customer.scope, { ...query.filters, page: 1, pageSize: query.pageSize });
        for (const sql of [COUNT_SQL, COUNTERS_COUNT_SQL]) {
          const runs: number[] = [];
          for (let run = 0; run < 5; run++) runs.push(await databaseTime(client, [{ sql, values }]));
          times.push(median(runs).toFixed(2));
        }
      }
      log(row([query.label, ...times], [32, 12, 14, 12, 14]));
    }
  } finally {
    client.release();
  }
  log();
}
