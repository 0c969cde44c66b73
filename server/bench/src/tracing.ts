// `npm run bench:tracing -w @loadfeed/server`: what traces cost. Page 1 of 100 of one customer's feed,
// served by our server with tracing off (the default), with OpenTelemetry traces on (OTLP/HTTP protobuf to
// a receiver on loopback that takes and drops them, in this process), and with SERVER_TIMING=on,
// alternating rounds in one run; requests/s and server CPU per request, each against tracing off. Not
// part of `npm test`.
//
// Environment: BENCH_DATABASE_URL, TEST_DATABASE_URL or DATABASE_URL (a server: the benchmark makes its
// database there, loadfeed_tracing_bench; else an embedded PostgreSQL),
// BENCH_SECONDS (5 per measured run), BENCH_ROUNDS (3).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { migrate } from '../../dist/db/migrate.js';
import { createPool } from '../../dist/db/pool.js';
import { createKey } from '../../dist/admission/keys.js';
import { generateCustomers } from '../../dist/seed/customers.js';
import { seedDatabase } from '../../dist/seed/seed.js';
import { startHostedPostgres } from '../../dist/db/hosted-postgres.js';
import { ensureDatabase } from './database.js';
import { measureLoad, medianResult, type LoadResult } from './load.js';
import { postgresCpuMs, startServerProcess } from './processes.js';
import { row } from './report.js';

const DATA = { seed: 'tracing', customers: 1, loads: 20_000 } as const;
const UNLIMITED = 2_000_000_000;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const EMBEDDED_DIR = fileURLToPath(new URL('../.data', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/** An OTLP/HTTP receiver that takes every export and drops it, counting what it took. */
async function otlpSink(): Promise<{ url: string; exports: () => number; bytes: () => number; close(): Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// A database of its own beside the other benchmarks', on their server.
const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
const embedded = serverUrl ? undefined : await startHostedPostgres(EMBEDDED_DIR);
const url = await ensureDatabase(serverUrl ?? embedded!.url, 'loadfeed_tracing_bench');
const pool = createPool(url, { max: 2 });
const sink = await otlpSink();
try {
  const loadAtStart = loadavg()[0]!;
  await migrate(url);
  const customer = generateCustomers(DATA.seed, DATA.customers)[0]!.code;
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM loads');
  if (rows[0]!.n < DATA.loads) {
    const today = new Date();
    await seedDatabase(pool, { ...DATA, asOf: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())) });
    await pool.query('VACUUM (ANALYZE) loads');
  }
  const { key } = await createKey(pool, customer, { rateLimit: UNLIMITED });
  const base = { DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn' };
  const variants: { name: string; env: Record<string, string> }[] = [
    { name: 'off', env: base },
    { name: 'traces (OTLP)', env: { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'loadfeed-bench' } },
    { name: 'Server-Timing', env: { ...base, SERVER_TIMING: 'on' } },
  ];
  log('tracing cost: page 1 of 100, our server, tracing off against on, alternating rounds');
  log(`  machine: ${cpus().length} CPU cores shared with other work (1-minute load average ${loadAtStart.toFixed(1)} at start): throughput moves with the neighbours; CPU per request less`);
  log(`  data: ${DATA.loads} loads of one customer; autocannon, ${seconds} s per run after a warm-up, median of ${ROUNDS} rounds`);
  const path = `${LIST_LOADS_PATH}?page=1&pageSize=100`;
  const rounds = new Map<string, LoadResult[]>(variants.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, env } of variants) {
      const server = await startServerProcess(CLI, ['start'], env);
      try {
        const result = await measureLoad(`${server.baseUrl}${path}`, key, { server: server.cpuMs, database: postgresCpuMs }, { seconds, warmupSeconds: 2 });
        if (result.failures > 0) log(`  warning: ${name} had ${result.failures} failed requests`);
        rounds.get(name)!.push(result);
      } finally {
        await server.stop();
      }
    }
  }
  if (sink.exports() === 0) throw new Error('the OTLP receiver got no traces: the traced runs measured nothing');
  const off = medianResult(rounds.get('off')!);
  const widths = [16, 12, 10, 12, 10, 10, 10];
  log();
  log(row(['', 'requests/s', 'vs off', 'server CPU', 'vs off', 'p50 ms', 'p99 ms'], widths));
  for (const { name } of variants) {
    const result = medianResult(rounds.get(name)!);
    log(row([name, result.requestsPerSecond, result.requestsPerSecond / off.requestsPerSecond, result.serverCpuMsPerRequest, result.serverCpuMsPerRequest / off.serverCpuMsPerRequest, result.p50Ms, result.p99Ms], widths));
  }
  log();
  for (const { name } of variants) log(`  ${name}, requests/s by round: ${rounds.get(name)!.map((result) => result.requestsPerSecond.toFixed(0)).join(', ')}`);
  log(`  the receiver took ${sink.exports()} exports, ${(sink.bytes() / 1e6).toFixed(1)} MB; 1-minute load average at the end ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await sink.close();
  await pool.end();
  await embedded?.stop();
}
