// `npm run bench:admission -w @loadfeed/server`: what a request's admission (key, rate window, horizon:
// one round trip) costs the database, the previous release's (migrations up to 0011: a row per counted
// request, the instance's clock) against this one's (one row per key, the database's clock; the admission's
// functions as server/sql/ defines them), in one run, alternating rounds. Per request: the latency seen by the caller (median, p99) and the CPU of the
// PostgreSQL backend that served it (its own /proc counters: other work on the machine is not counted).
// Not part of `npm test`.
//
// Environment: BENCH_DATABASE_URL, else TEST_DATABASE_URL/DATABASE_URL's server (two scratch databases,
// dropped after), BENCH_ADMISSIONS (3000 a round), BENCH_ROUNDS (4), BENCH_RATE_LIMIT (2000000000, as the
// page benchmark's key; 1000 measures a full exact window), BENCH_STEADY_PER_SECOND (250; 0: none),
// BENCH_TURN (100: each round runs the two sides in alternating turns of this many admissions).
//
// Two sets of rounds. Fresh key: the key's window starts empty and holds only the rounds' own requests.
// Steady state: then both windows are filled as BENCH_STEADY_PER_SECOND requests a second sustained for
// a whole window would have left them (steady-window.ts), and the rounds run again. The previous release's
// cost grows with the requests its window counts (a row each); this release's does not.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import { admitRequest } from '../../dist/admission/admit-request.js';
import { LAST_USED_RESOLUTION_MS } from '../../dist/admission/credentials.js';
import { hashKey } from '../../dist/admission/key-format.js';
import { addCustomer } from '../../dist/customers.js';
import { createPool } from '../../dist/db/pool.js';
import { createKey } from '../../dist/admission/keys.js';
import { row, targetLines } from './report.js';
import { dropScratchDatabases, scratchDatabase } from './scratch-database.js';
import { fillPreviousWindow, fillWindow } from './steady-window.js';

const PER_ROUND = Number(process.env.BENCH_ADMISSIONS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const LIMIT = Number(process.env.BENCH_RATE_LIMIT ?? 2_000_000_000);
const STEADY_PER_SECOND = Number(process.env.BENCH_STEADY_PER_SECOND ?? 250);
const TURN = Number(process.env.BENCH_TURN ?? 100);
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/** The previous release's admission statement (its src/auth/admission.ts), its instance's clock as $3. */
const PREVIOUS_ADMIT_SQL = `
SELECT key_id, customer_id::text AS customer_id, customer_code, rate_limit, admitted, counted, oldest, admits_at, settled_through, feed_version::text AS feed_version
  FROM admit_request($1::bytea, $2::integer, $3::timestamptz, $4::integer * interval '1 millisecond', $5::integer * interval '1 millisecond')`;

interface Side {
  name: string;
  pool: pg.Pool;
  backendPid: number;
  admit(): Promise<boolean>;
  /** Fills the key's window as `perSecond` requests a second for a whole window would; how many it counts. */
  fill(perSecond: number): Promise<number>;
}

interface RoundResult {
  medianMs: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  perSecond: number;
}

/**
 * CPU milliseconds process `pid` has used: /proc/<pid>/schedstat (nanoseconds on a CPU) where the kernel
 * keeps it, else /proc/<pid>/stat (user + system, in clock ticks of 10 ms).
 */
function cpuMsOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    // No schedstat: the coarser counters below.
  }
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function prepareSide(serverUrl: string, name: string, lastMigration: string, previous: boolean): Promise<Side> {
  const url = new URL(await scratchDatabase(serverUrl, name, lastMigration));
  // One connection, so that one backend serves every admission and its CPU is theirs.
  const pool = createPool(url.toString(), { max: 1 });
  await addCustomer(pool, 'admitted');
  const { key, id: keyId } = await createKey(pool, 'admitted', { rateLimit: LIMIT });
  const backendPid = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const admit = previous
    ? async () => (await pool.query<{ admitted: boolean }>(PREVIOUS_ADMIT_SQL, [hashKey(key), 10, new Date(), RATE_WINDOW_MS, LAST_USED_RESOLUTION_MS])).rows[0]!.admitted
    : async () => (await admitRequest(pool, key, 10))!.decision.admitted;
  const fill = previous ? (perSecond: number) => fillPreviousWindow(pool, keyId, perSecond) : (perSecond: number) => fillWindow(pool, keyId, LIMIT, perSecond);
  return { name, pool, backendPid, admit, fill };
}

/**
 * One round of both sides, in turns of BENCH_TURN admissions (the side that goes first alternating from
 * turn to turn), so that both sides meet the same load from the machine's other work; each side's figures
 * are over its own turns.
 */
async function measureRound(): Promise<Map<string, RoundResult>> {
  const timings = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const cpuMs = new Map<string, number>(sides.map((side) => [side.name, 0]));
  const elapsedMs = new Map<string, number>(sides.map((side) => [side.name, 0]));
  for (let turn = 0; turn * TURN < PER_ROUND; turn += 1) {
    const admissions = Math.min(TURN, PER_ROUND - turn * TURN);
    for (const side of turn % 2 === 0 ? sides : [...sides].reverse()) {
      const cpuBefore = cpuMsOf(side.backendPid);
      const started = performance.now();
      for (let index = 0; index < admissions; index += 1) {
        const begun = performance.now();
        await side.admit();
        timings.get(side.name)!.push(performance.now() - begun);
      }
      elapsedMs.set(side.name, elapsedMs.get(side.name)! + performance.now() - started);
      cpuMs.set(side.name, cpuMs.get(side.name)! + cpuMsOf(side.backendPid) - cpuBefore);
    }
  }
  return new Map(
    sides.map((side) => {
      const sorted = timings.get(side.name)!.sort((a, b) => a - b);
      return [
        side.name,
        {
          medianMs: sorted[Math.floor(sorted.length / 2)]!,
          p99Ms: sorted[Math.floor(sorted.length * 0.99)]!,
          cpuMsPerRequest: cpuMs.get(side.name)! / PER_ROUND,
          perSecond: PER_ROUND / (elapsedMs.get(side.name)! / 1000),
        },
      ];
    }),
  );
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!serverUrl) throw new Error('bench:admission needs BENCH_DATABASE_URL, TEST_DATABASE_URL or DATABASE_URL (a PostgreSQL server to make two scratch databases on)');
const loadAverage = loadavg()[0]!;
// Two sides: the previous release and this one (every migration, then server/sql/'s definitions).
const sides = [
  await prepareSide(serverUrl, 'loadfeed_admission_before', '0011', true),
  await prepareSide(serverUrl, 'loadfeed_admission_after', '9999', false),
];
/** ROUNDS rounds of both sides (measureRound). */
async function alternatingRounds(): Promise<Map<string, RoundResult[]>> {
  const results = new Map<string, RoundResult[]>(sides.map((side) => [side.name, []]));
  for (let index = 0; index < ROUNDS; index += 1) {
    for (const [name, result] of await measureRound()) results.get(name)!.push(result);
  }
  return results;
}

function report(title: string, results: Map<string, RoundResult[]>, targetPrefix: string): void {
  log(title);
  const widths = [36, 10, 10, 10, 12];
  log(row(['', 'median ms', 'p99 ms', 'DB CPU ms', 'admissions/s'], widths));
  for (const side of sides) {
    results.get(side.name)!.forEach((result, index) => log(row([`${side.name}, round ${index + 1}`, result.medianMs, result.p99Ms, result.cpuMsPerRequest, result.perSecond], widths)));
  }
  const [before, after] = sides.map((side) => results.get(side.name)!) as [RoundResult[], RoundResult[]];
  const pick = (rounds: RoundResult[], figure: (result: RoundResult) => number) => median(rounds.map(figure));
  log();
  log(`Targets (${targetPrefix}):`);
  for (const line of targetLines([
    { name: 'admission database CPU per request, after / before', value: pick(after, (r) => r.cpuMsPerRequest) / pick(before, (r) => r.cpuMsPerRequest), unit: 'x', bound: 0.5, comparison: '<=' },
    { name: 'admission median latency, after / before', value: pick(after, (r) => r.medianMs) / pick(before, (r) => r.medianMs), unit: 'x', bound: 0.5, comparison: '<=' },
    { name: 'admission p99 latency, after / before', value: pick(after, (r) => r.p99Ms) / pick(before, (r) => r.p99Ms), unit: 'x', bound: 0.5, comparison: '<=' },
    { name: 'after: last round / first round, admissions/s', value: after[after.length - 1]!.perSecond / after[0]!.perSecond, unit: 'x', bound: 0.9, comparison: '>=' },
  ])) {
    log(line);
  }
  log();
}

try {
  const fresh = await alternatingRounds();
  let steady: { results: Map<string, RoundResult[]>; counted: number[] } | undefined;
  if (STEADY_PER_SECOND > 0) {
    const counted = [];
    for (const side of sides) counted.push(await side.fill(STEADY_PER_SECOND));
    steady = { results: await alternatingRounds(), counted };
  }
  log('loadfeed admission benchmark: key lookup, rate window and horizon, one round trip, one connection');
  log(`  machine: ${cpus().length} CPU cores shared with other work (1-minute load average ${loadAverage.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at the end)`);
  log(`  ${ROUNDS} rounds of ${PER_ROUND} sequential admissions of one key (limit ${LIMIT}) per side, the sides taking alternating turns of ${TURN}; the rows carry over between rounds`);
  log(`  before: migrations up to 0011 (the previous release: a row per counted request, the instance's clock); after: this release (one row per key, server/sql/'s admission)`);
  log();
  report('Fresh key (each window holds only the rounds\' own requests):', fresh, 'fresh key');
  if (steady) {
    report(
      `Steady state (then each window filled as by ${STEADY_PER_SECOND} requests/s sustained for a window: before ${steady.counted[0]} requests counted, after ${steady.counted[1]}; tables vacuumed):`,
      steady.results,
      'steady state',
    );
  }
} finally {
  await Promise.all(sides.map((side) => side.pool.end()));
  await dropScratchDatabases(serverUrl, sides.map((side) => side.name));
}
