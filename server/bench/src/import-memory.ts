// `npm run bench:import -w @loadfeed/server`: the importer's peak memory and speed against the size of its
// input, measured in one run (issue "hostile files": 1M rows once peaked at 3,061 MB). Not part of
// `npm test`; the tests import 100k rows and check behaviour, this measures.
//
// Generated NDJSON files of BENCH_IMPORT_ROWS rows (default 1,000,000) and of a tenth of that, each
// imported by the built `loadfeed-server import` into a database of its own, twice (new rows, then
// every row unchanged); and a file whose second line is BENCH_LONG_LINE_MB (default 256) MB long. The
// child's peak resident memory is read from /proc/<pid>/status (VmHWM) while it runs. Printed: peak MB,
// seconds and rows/s of each run, and the ratio of the large file's peak to the small one's (flat: ~1).
//
// Environment: BENCH_DATABASE_URL's server (else TEST_DATABASE_URL/DATABASE_URL's, else embedded).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { addCustomer } from '../../dist/customers.js';
import { createPool } from '../../dist/db/pool.js';
import { migrate } from '../../dist/db/migrate.js';
import { generateLoads } from '../../dist/seed/loads.js';
import { openBenchDatabase } from './database.js';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const LONG_LINE_MB = Number(process.env.BENCH_LONG_LINE_MB ?? 256);
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

interface Run {
  peakMb: number;
  seconds: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

async function writeFile(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) {
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function* loadLines(count: number, customerCode: string): Generator<string> {
  for (const load of generateLoads({ seed: 'import-bench', customerCode, count, asOf: new Date() })) yield `${JSON.stringify(load)}\n`;
}

function* longLineFile(megabytes: number): Generator<string> {
  yield `${JSON.stringify({ loadNumber: 'BEFORE-LONG', status: 'Available' })}\n`;
  const piece = 'x'.repeat(1024 * 1024);
  // One line of `megabytes` MB, written in 1 MB pieces so that the bench itself stays small.
  yield `{"loadNumber":"LONG","status":"Available","poNumber":"${piece}`;
  for (let written = 1; written < megabytes; written++) yield piece;
  yield '"}\n';
}

/** Runs the CLI's import of `file`, sampling the child's peak resident memory until it exits. */
async function runImport(databaseUrl: string, customerCode: string, file: string): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'import', customerCode, file, '--json'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString().slice(0, 10_000)));
  let peakKb = 0;
  const sample = async (): Promise<void> => {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    if (match) peakKb = Math.max(peakKb, Number(match[1]));
  };
  const timer = setInterval(() => void sample(), 20);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(timer);
  return { peakMb: peakKb / 1024, seconds: (performance.now() - started) / 1000, code, stdout, stderr };
}

const bench = await openBenchDatabase(process.env);
const url = new URL(bench.url);
const name = `loadfeed_bench_import_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: bench.url });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
url.pathname = `/${name}`;
const databaseUrl = url.toString();
const folder = await mkdtemp(join(tmpdir(), 'loadfeed-bench-import-'));
try {
  await migrate(databaseUrl);
  const pool = createPool(databaseUrl, { max: 2 });
  for (const code of ['small', 'large', 'long']) await addCustomer(pool, code);
  await pool.end();

  const sizes = [
    { code: 'small', rows: Math.max(1, Math.round(ROWS / 10)) },
    { code: 'large', rows: ROWS },
  ];
  log(`import memory, ${new Date().toISOString()}, PostgreSQL on ${bench.where}`);
  const peaks = new Map<string, number>();
  for (const { code, rows } of sizes) {
    const file = join(folder, `${code}.ndjson`);
    await writeFile(file, loadLines(rows, code));
    for (const pass of ['new rows', 'unchanged']) {
      const run = await runImport(databaseUrl, code, file);
      if (run.code !== 0) throw new Error(`import of ${rows} rows exited ${run.code}: ${run.stderr}`);
      peaks.set(code, Math.max(peaks.get(code) ?? 0, run.peakMb));
      log(`  ${rows.toLocaleString('en-US')} rows, ${pass}: peak ${run.peakMb.toFixed(0)} MB, ${run.seconds.toFixed(1)} s, ${Math.round(rows / run.seconds).toLocaleString('en-US')} rows/s; ${run.stdout.trim()}`);
    }
    await rm(file);
  }
  log(`  peak at ${ROWS.toLocaleString('en-US')} rows / peak at ${sizes[0]!.rows.toLocaleString('en-US')} rows: ${(peaks.get('large')! / peaks.get('small')!).toFixed(2)}x`);

  const longFile = join(folder, 'long.ndjson');
  await writeFile(longFile, longLineFile(LONG_LINE_MB));
  const long = await runImport(databaseUrl, 'long', longFile);
  log(`  a ${LONG_LINE_MB} MB line: exit ${long.code}, peak ${long.peakMb.toFixed(0)} MB, ${long.seconds.toFixed(1)} s; ${long.stdout.trim().slice(0, 300)}`);
} finally {
  await rm(folder, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
  await bench.stop();
}
