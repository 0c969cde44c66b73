// `npm run bench -w @loadfeed/server`: the reference server against a plain baseline on the same data,
// side by side in one run, with the ratios the issue sets as targets. Not part of `npm test`.
//
// Environment: BENCH_DATABASE_URL (else TEST_DATABASE_URL/DATABASE_URL's server, else embedded),
// BENCH_SECONDS (8 per measured run), BENCH_ROUNDS (3 alternating rounds per server and page),
// BENCH_PAGE_SIZES (100,1000), BENCH_SERVERS (which to run, comma-separated; all by default),
// BENCH_SWEEP_STRIDE (5: every 5th page of the sweep is timed), BENCH_BEFORE_REV (an earlier server to
// run beside, built from git: before.ts; `none`, the default, leaves it out).
import { cpus, loadavg } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import { createPool } from '../../dist/db/pool.js';
import { createKey } from '../../dist/admission/keys.js';
import { choosePageStatement, feedParameters } from '../../dist/loads/list.js';
import { COUNTED_PAGE_SQL } from '../../dist/loads/list-statements.js';
import { authAndRateLimitCost } from './auth-cost.js';
import { prepareBefore } from './before.js';
import { BASELINE_COUNT_SQL, BASELINE_PAGE_SQL, baselinePageParameters, baselineScope } from './baseline-queries.js';
import { BENCH_DATA, MEASURED_CUSTOMER, openBenchDatabase, prepareData } from './database.js';
import { CONNECTIONS, measureLoad, medianResult, type LoadResult } from './load.js';
import { postgresCpuMs, startServerProcess } from './processes.js';
import { row, targetLines, type Target } from './report.js';
import { databaseTime, sweepDatabaseTime, type Statement } from './sweep.js';

/** The sweep's page size, and the first of the measured ones. */
const PAGE_SIZE = 100;
const PAGE_SIZES = (process.env.BENCH_PAGE_SIZES ?? '100,1000').split(',').map(Number);
/** A limit no run can reach: the benchmark measures throughput, not 429s. */
const UNLIMITED = 2_000_000_000;
const AUTH_ITERATIONS = 2_000;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baseline-server.js', import.meta.url));
const SAME_WORK = fileURLToPath(new URL('./same-work-server.js', import.meta.url));
const JSON_IN_SQL = fileURLToPath(new URL('./json-in-sql-server.js', import.meta.url));

interface MeasuredServer {
  name: string;
  script: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  key: string;
}

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const stride = Number(process.env.BENCH_SWEEP_STRIDE ?? 5);
const beforeRevision = process.env.BENCH_BEFORE_REV ?? 'none';
const chosenServers = process.env.BENCH_SERVERS?.split(',');
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

const database = await openBenchDatabase(process.env);
const pool = createPool(database.url, { max: 2 });
try {
  const loadAverage = loadavg()[0]!;
  await prepareData(pool, database.url, log);
  const { key } = await createKey(pool, MEASURED_CUSTOMER, { rateLimit: UNLIMITED });
  const customerId = (await pool.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [MEASURED_CUSTOMER])).rows[0]!.id;
  const windowStart = feedWindowStart(new Date());
  const inWindow = Number((await pool.query<{ total: number }>(BASELINE_COUNT_SQL, baselineScope(customerId, windowStart))).rows[0]!.total);
  const deepestPage = Math.ceil(inWindow / PAGE_SIZE);
  const { rows: version } = await pool.query<{ server_version: string }>('SHOW server_version');
  const env = { DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'warn', MAX_PAGE_SIZE: String(Math.max(...PAGE_SIZES)) };
  const before = beforeRevision === 'none' ? undefined : await prepareBefore(beforeRevision, database.url, UNLIMITED, log);
  /** The servers measured, one at a time, in alternating rounds; ratios are against ours. */
  const SERVERS: MeasuredServer[] = [
    { name: 'ours', script: CLI, args: ['start'], env, key },
    ...(before ? [{ name: 'before', script: before.cli, args: ['start'], env: { ...env, DATABASE_URL: before.databaseUrl }, key: before.key }] : []),
    { name: 'same work', script: SAME_WORK, args: [], env, key },
    { name: 'JSON in SQL', script: JSON_IN_SQL, args: [], env, key },
    { name: 'baseline', script: BASELINE, args: [], env, key },
  ].filter(({ name }) => name === 'ours' || !chosenServers || chosenServers.includes(name));

  log('loadfeed server benchmark');
  log(`  machine: ${cpus().length} CPU cores shared with other work (1-minute load average ${loadAverage.toFixed(1)} at start); PostgreSQL ${version[0]!.server_version}, ${database.where}`);
  log(`  data: ${BENCH_DATA.loads} loads, ${BENCH_DATA.customers} customers; measured customer ${MEASURED_CUSTOMER}: ${inWindow} loads in the window = ${deepestPage} pages of ${PAGE_SIZE}; page sizes ${PAGE_SIZES.join(' and ')}`);
  if (before) log(`  before: the server at ${before.revision} (the issue's "today's ours"), built from git, on a database of its own seeded by its own code`);
  log(`  load: autocannon, ${CONNECTIONS} connections, ${seconds} s per run after a warm-up (2 s, then up to ${process.env.BENCH_WARMUP_REQUESTS ?? 1500} requests in all, at most 20 s), median of ${ROUNDS} alternating rounds; ours logs at warn; one server runs at a time`);
  log();

  const pages = PAGE_SIZES.flatMap((pageSize) => {
    const deepest = Math.ceil(inWindow / pageSize);
    return [
      { label: `page 1 of ${pageSize}`, page: 1, pageSize },
      { label: `page ${deepest} of ${pageSize}`, page: deepest, pageSize },
    ];
  });
  const results: Record<string, Record<string, LoadResult>> = {};
  /** Per page, each server's requests/s round by round: a decline of ours alone is ours, one of all is the machine's or the database's. */
  const roundRates: Record<string, Record<string, number[]>> = {};
  for (const { label, page, pageSize } of pages) {
    const path = `${LIST_LOADS_PATH}?page=${page}&pageSize=${pageSize}`;
    const rounds = Object.fromEntries(SERVERS.map(({ name }) => [name, [] as LoadResult[]])) as Record<string, LoadResult[]>;
    const served: Record<string, unknown> = {};
    // Rounds alternate between the servers, so that a burst of other work on the shared machine does
    // not fall on one side only; each figure is the median of its rounds.
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, script, args, env: serverEnv, key: serverKey } of SERVERS) {
        const server = await startServerProcess(script, [...args], serverEnv);
        try {
          // Same data: each server's page, parsed, must be ours (JSON in SQL writes its objects with spaces).
          if (round === 0) served[name] = await pageData(`${server.baseUrl}${path}`, serverKey);
          const result = await measureLoad(`${server.baseUrl}${path}`, serverKey, { server: server.cpuMs, database: postgresCpuMs }, { seconds, warmupSeconds: 2 });
          if (result.failures > 0) log(`  warning: ${name} had ${result.failures} failed requests at ${label}`);
          rounds[name]!.push(result);
        } finally {
          await server.stop();
        }
      }
    }
    for (const { name } of SERVERS) {
      if (name !== 'before' && !isDeepStrictEqual(served[name], served.ours)) throw new Error(`${name} served other data than ours at ${label}`);
    }
    roundRates[label] = Object.fromEntries(SERVERS.map(({ name }) => [name, rounds[name]!.map((result) => result.requestsPerSecond)]));
    results[label] = Object.fromEntries(SERVERS.map(({ name }) => [name, medianResult(rounds[name]!)])) as Record<string, LoadResult>;
  }

  // Our server counts with the first page and keeps the count while the customer's feed version stays
  // the same (src/loads/count-cache.ts): later pages of a sweep, and every request of a load run after
  // its warm-up, read the page alone, from the start or, past the middle, from the end.
  const scope = { customerId, windowStart, settledThrough: new Date().toISOString() };
  const oursCounting = (page: number): Statement[] => [{ sql: COUNTED_PAGE_SQL, values: [...feedParameters(scope, { page, pageSize: PAGE_SIZE }), page, PAGE_SIZE] }];
  const oursKept = (page: number): Statement[] => [choosePageStatement(scope, { page, pageSize: PAGE_SIZE }, inWindow)];
  const ours = (page: number): Statement[] => (page === 1 ? oursCounting(page) : oursKept(page));
  const baseline = (page: number): Statement[] => [
    { sql: BASELINE_COUNT_SQL, values: baselineScope(customerId, windowStart) },
    { sql: BASELINE_PAGE_SQL, values: baselinePageParameters(customerId, windowStart, page, PAGE_SIZE) },
  ];
  const sweep = await sweepDatabaseTime(pool, deepestPage, stride, { ours, baseline });
  const countOnly = await databaseTime(pool, baseline(1).slice(0, 1));
  const perPage = {
    first: [await databaseTime(pool, oursKept(1)), await databaseTime(pool, baseline(1))],
    deepest: [await databaseTime(pool, oursKept(deepestPage)), await databaseTime(pool, baseline(deepestPage))],
    counting: await databaseTime(pool, oursCounting(1)),
  };
  const steps = await authAndRateLimitCost(pool, key, AUTH_ITERATIONS);

  const names = SERVERS.map(({ name }) => name);
  const widths = [32, ...names.map(() => 12), 16, 14];
  log(row(['', ...names, 'ours / same work', 'ours / JSON in SQL'], widths));
  const figures: [string, (result: LoadResult) => number][] = [
    ['requests/s', (result) => result.requestsPerSecond],
    ['p50 ms', (result) => result.p50Ms],
    ['p99 ms', (result) => result.p99Ms],
    ['server CPU ms/req', (result) => result.serverCpuMsPerRequest],
    ['database CPU ms/req', (result) => result.databaseCpuMsPerRequest],
    ['total CPU ms/req', (result) => result.serverCpuMsPerRequest + result.databaseCpuMsPerRequest],
  ];
  for (const [label, measured] of Object.entries(results)) {
    for (const [figure, pick] of figures) {
      const ratio = (other: string) => (measured[other] ? pick(measured.ours!) / pick(measured[other]) : Number.NaN);
      log(row([`${label}: ${figure}`, ...names.map((name) => pick(measured[name]!)), ratio('same work'), ratio('JSON in SQL')], widths));
    }
  }
  log();
  const widthsDb = [32, 12, 12, 8];
  log(row(['', 'ours', 'baseline', 'ratio'], widthsDb));
  log('requests/s of each consecutive round (ours: no decline from round to round; each server starts afresh every round):');
  for (const [label, perServer] of Object.entries(roundRates)) {
    for (const [name, perRound] of Object.entries(perServer)) log(`  ${label}, ${name}: ${perRound.map((value) => value.toFixed(0)).join(', ')}`);
  }
  log();
  log(row(['full sweep DB time, s', sweep.ours / 1000, sweep.baseline / 1000, sweep.baseline / sweep.ours], widthsDb));
  log(row(['DB time page 1, ms', perPage.first[0]!, perPage.first[1]!, perPage.first[1]! / perPage.first[0]!], widthsDb));
  log(row([`DB time page ${deepestPage}, ms`, perPage.deepest[0]!, perPage.deepest[1]!, perPage.deepest[1]! / perPage.deepest[0]!], widthsDb));
  log(`  (DB time: EXPLAIN ANALYZE planning + execution; the sweep times every ${stride}th of ${deepestPage} pages and scales to all;`);
  log(`   for DB time the ratio is baseline / ours; the exact count(*) of the window alone takes ${countOnly.toFixed(1)} ms: the baseline`);
  log(`   counts on every request, ours on the first after a change (page 1 with the count: ${perPage.counting.toFixed(1)} ms))`);
  log(`1-minute load average at the end: ${loadavg()[0]!.toFixed(1)}`);
  log(`auth + rate limit: median ${steps.medianMs.toFixed(3)} ms, p99 ${steps.p99Ms.toFixed(3)} ms over ${AUTH_ITERATIONS} sequential requests`);
  log();

  const rate = (result: LoadResult | undefined) => result?.requestsPerSecond ?? Number.NaN;
  log('Targets:');
  const targets: Target[] = pages.flatMap(({ label, page }): Target[] => {
    const measured = results[label]!;
    const peer = page === 1 ? 0.9 : 5;
    return [
      { name: `${label}: throughput, ours / JSON in SQL`, value: rate(measured.ours) / rate(measured['JSON in SQL']), unit: 'x' as const, bound: peer, comparison: '>=' as const },
      { name: `${label}: throughput, ours / same work`, value: rate(measured.ours) / rate(measured['same work']), unit: 'x' as const, bound: 0.8, comparison: '>=' as const },
    ];
  });
  const rounds = Object.values(roundRates).map((perServer) => perServer.ours!);
  targets.push({ name: 'ours: worst last round / first round, requests/s', value: Math.min(...rounds.map((perRound) => perRound[perRound.length - 1]! / perRound[0]!)), unit: 'x', bound: 0.9, comparison: '>=' });
  targets.push({ name: 'auth + rate limit + horizon, median per request', value: steps.medianMs, unit: 'ms', bound: 1.5, comparison: '<=' });
  for (const line of targetLines(targets)) log(line);
} finally {
  await pool.end();
  await database.stop();
}

/** The `data` of a page, parsed: what every server must agree on. */
async function pageData(url: string, key: string): Promise<unknown> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return Array.isArray(body) ? body : (body as { data: unknown }).data;
}
