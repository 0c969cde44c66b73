// `npm run bench:replicas -w @loadfeed/server`: what a standby takes off the primary. On the topology of
// topology.ts, with one customer's feed seeded (BENCH_LOADS, default 150,000), side by side in one run,
// alternating: one instance whose pages are read on the primary (no DATABASE_REPLICA_URLS) against two
// instances behind HAProxy reading pages on the standby, both through the same PgBouncer. Page 1 and the
// deepest page; throughput and p99 from autocannon (10 connections), and the CPU the primary's and the
// standby's PostgreSQL processes spent per request (from /proc: the postmaster, its live children, and
// what its ended children left in its cutime/cstime). The requests are spread over many keys of the
// customer (BENCH_KEYS, default 500). Not part of `npm test`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { addCustomer } from '../../dist/customers.js';
import { createKey } from '../../dist/admission/keys.js';
import { seedCustomerLoads } from '../../dist/seed/seed.js';
import { startInstance } from './instance.js';
import { startTopology } from './topology.js';

const LOADS = Number(process.env.BENCH_LOADS ?? 150_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
/** Keys the load is spread over (all of the benchmark's customer). */
const KEYS = Number(process.env.BENCH_KEYS ?? 500);
const say = (line: string) => process.stderr.write(`${line}\n`);

/** What a PostgreSQL process does, from its title (`postgres: walsender …`, `postgres: autovacuum worker`, …). */
function kindOf(pid: number): string {
  const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  if (title.includes('walsender')) return 'walsender';
  if (title.includes('walreceiver')) return 'walreceiver';
  if (title.includes('startup')) return 'replay';
  if (title.includes('autovacuum')) return 'autovacuum';
  if (/walwriter|checkpointer|background writer|stats|launcher|archiver/.test(title)) return 'background';
  return 'backends';
}

/**
 * CPU ms of a PostgreSQL cluster so far, by kind of process: its live children by their titles, and
 * the postmaster with what its ended children left in its cutime/cstime (short-lived autovacuum
 * workers, mostly) as `postmaster+ended`.
 */
function clusterCpuMs(dataDir: string): Record<string, number> {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const fieldsOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const own = fieldsOf(postmaster);
  const ticks: Record<string, number> = { 'postmaster+ended': Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]) };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = fieldsOf(Number(entry));
      if (Number(fields[1]) !== postmaster) continue;
      const kind = kindOf(Number(entry));
      ticks[kind] = (ticks[kind] ?? 0) + Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while being read; its time is in the postmaster's cutime from now on.
    }
  }
  return Object.fromEntries(Object.entries(ticks).map(([kind, count]) => [kind, (count * 1000) / 100]));
}

const total = (byKind: Record<string, number>) => Object.values(byKind).reduce((sum, ms) => sum + ms, 0);

/** Per request, by kind, between two readings. */
function perRequest(before: Record<string, number>, after: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((kind) => [kind, ((after[kind] ?? 0) - (before[kind] ?? 0)) / requests]));
}

interface Measured {
  rps: number;
  p99: number;
  primaryCpuMs: number;
  primaryByKind: Record<string, number>;
  standbyCpuMs: number;
  instancesCpuMs: number;
  failures: number;
}

async function measure(url: string, keys: string[], cpu: { primary: () => Record<string, number>; standby: () => Record<string, number>; instances: () => number }): Promise<Measured> {
  // Each request carries the next of many keys, as many customers' clients do: a single hot key would
  // measure contention on its one rate-limit row rather than what a request costs.
  let next = 0;
  const parsed = new URL(url);
  const spread = [
    {
      method: 'GET',
      path: parsed.pathname + parsed.search,
      setupRequest: (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${keys[next++ % keys.length]}` } }),
    },
  ];
  await autocannon({ url: parsed.origin, connections: CONNECTIONS, duration: 1, requests: spread });
  const before = { primary: cpu.primary(), standby: cpu.standby(), instances: cpu.instances() };
  const result = await autocannon({ url: parsed.origin, connections: CONNECTIONS, duration: SECONDS, requests: spread });
  const requests = Math.max(1, result.requests.total);
  const primaryByKind = perRequest(before.primary, cpu.primary(), requests);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    primaryCpuMs: total(primaryByKind),
    primaryByKind,
    standbyCpuMs: total(perRequest(before.standby, cpu.standby(), requests)),
    instancesCpuMs: (cpu.instances() - before.instances) / requests,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const topology = await startTopology({ loads: 0, progress: (step) => say(`bench: starting ${step}`) });
try {
  const pool = new pg.Pool({ connectionString: topology.primaryUrl, max: 2 });
  say(`bench: seeding ${LOADS} loads for customer "bench"`);
  const seeding = Date.now();
  await addCustomer(pool, 'bench');
  await seedCustomerLoads(pool, 'bench', { seed: 'bench-replicas', count: LOADS, asOf: new Date() });
  const keys: string[] = [];
  for (let made = 0; made < KEYS; made += 1) keys.push((await createKey(pool, 'bench', { rateLimit: 1_000_000 })).key);
  const key = keys[0]!;
  await pool.query('VACUUM ANALYZE loads');
  await pool.end();
  await topology.standby.caughtUp();
  say(`bench: seeded in ${((Date.now() - seeding) / 1000).toFixed(0)} s`);

  const alone = await startInstance({
    DATABASE_URL: topology.bouncer.urlOf('loadfeed'),
    DATABASE_DIRECT_URL: topology.primaryUrl,
  });
  try {
    const first = (await (await fetch(`${alone.baseUrl}/api/v1/loads?pageSize=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as { totalCount: number };
    const deepest = Math.ceil(first.totalCount / 100);
    say(`bench: ${first.totalCount} loads in the window = ${deepest} pages of 100; ${ROUNDS} rounds of ${SECONDS} s each, over ${keys.length} keys`);
    const setups = {
      'primary only (1 instance)': { url: alone.baseUrl, instances: () => alone.cpuMs() },
      'standby reads (2 instances, HAProxy)': { url: topology.url, instances: () => topology.instances.reduce((sum, each) => sum + each.cpuMs(), 0) },
    };
    const pages = { 'page 1': 1, [`page ${deepest} (deepest)`]: deepest };
    const results = new Map<string, Measured[]>();
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [pageName, page] of Object.entries(pages)) {
        for (const [setupName, setup] of Object.entries(setups)) {
          const measured = await measure(`${setup.url}/api/v1/loads?pageSize=100&page=${page}`, keys, {
            primary: () => clusterCpuMs(topology.primary.dataDir),
            standby: () => clusterCpuMs(topology.standby.dataDir),
            instances: setup.instances,
          });
          const name = `${pageName} | ${setupName}`;
          results.set(name, [...(results.get(name) ?? []), measured]);
          const kinds = Object.entries(measured.primaryByKind).filter(([, ms]) => ms > 0.0005).map(([kind, ms]) => `${kind} ${ms.toFixed(3)}`).join(', ');
          say(`bench: round ${round} ${name}: ${measured.rps.toFixed(0)} req/s, p99 ${measured.p99} ms, primary ${measured.primaryCpuMs.toFixed(3)} ms/req (${kinds}), standby ${measured.standbyCpuMs.toFixed(3)} ms/req, instances ${measured.instancesCpuMs.toFixed(2)} ms/req, failures ${measured.failures}`);
        }
      }
    }
    const lines = [
      `| page | setup | requests/s | p99 | primary CPU per request | standby CPU per request | instances' CPU per request | failures |`,
      '|---|---|---:|---:|---:|---:|---:|---:|',
    ];
    const primaryPerRequest = new Map<string, number>();
    for (const [name, rounds] of results) {
      const [pageName, setupName] = name.split(' | ') as [string, string];
      const primaryCpu = median(rounds.map((each) => each.primaryCpuMs));
      primaryPerRequest.set(name, primaryCpu);
      lines.push(
        `| ${pageName} | ${setupName} | ${median(rounds.map((each) => each.rps)).toFixed(0)} | ${median(rounds.map((each) => each.p99)).toFixed(0)} ms | ${primaryCpu.toFixed(3)} ms | ${median(rounds.map((each) => each.standbyCpuMs)).toFixed(3)} ms | ${median(rounds.map((each) => each.instancesCpuMs)).toFixed(2)} ms | ${rounds.reduce((sum, each) => sum + each.failures, 0)} |`,
      );
    }
    lines.push('', 'Primary CPU per request by kind of process (medians):', '');
    for (const [name, rounds] of results) {
      const kinds = [...new Set(rounds.flatMap((each) => Object.keys(each.primaryByKind)))];
      lines.push(`- ${name}: ${kinds.map((kind) => `${kind} ${median(rounds.map((each) => each.primaryByKind[kind] ?? 0)).toFixed(3)} ms`).join(', ')}`);
    }
    for (const pageName of Object.keys(pages)) {
      const ratio = primaryPerRequest.get(`${pageName} | standby reads (2 instances, HAProxy)`)! / primaryPerRequest.get(`${pageName} | primary only (1 instance)`)!;
      lines.push('', `${pageName}: primary CPU per request with a standby = ${ratio.toFixed(2)}x the primary-only setup's (goal ≤ 0.3x)`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await alone.stop();
  }
} finally {
  await topology.stop();
}
