// verifyCopy of a copy against the first sync that made it, in the same run, for each kind of copy
// (SQLite, DuckDB, and PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server: a scratch
// database is made there and dropped): its time as a ratio of the sync's, and what it keeps while it reads
// (the heap after GC, sampled every 25 pages) at two sizes of the feed, so that what grows with the feed
// shows as bytes a row.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncLoads, verifyCopy } from '@loadfeed/sdk';
import { openDuckdbDestination, openPostgresDestination, openSqliteDestination, type CopyDestination } from '@loadfeed/sdk/destinations';
import { fixture, mb } from './fixtures.js';

export interface VerifyResult {
  rows: number;
  syncMs: number;
  verifyMs: number;
  /** This process's CPU time (user + system) in each: steadier than wall time on a shared machine, but without a server's (PostgreSQL's) own. */
  syncCpuMs: number;
  verifyCpuMs: number;
  /** The largest heap in use above the one before verify started, after GC, in MB. */
  retainedMb: number;
  complete: boolean;
}

/** A kind of copy: how to open it to write and to read, and how to remove it after. */
export interface CopyKind {
  name: string;
  open(write: boolean): Promise<CopyDestination>;
  remove(): Promise<void>;
}

const gc = () => (globalThis as unknown as { gc: () => void }).gc();
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const inUse = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

function fileKind(name: string, extension: string, open: (path: string, write: boolean) => Promise<CopyDestination>): CopyKind {
  const path = join(tmpdir(), `loadfeed-bench-verify-${process.pid}.${extension}`);
  const remove = async () => {
    for (const suffix of ['', '-wal', '-shm', '.wal', '.lock']) rmSync(`${path}${suffix}`, { force: true });
  };
  return { name, open: (write) => open(path, write), remove };
}

export const sqliteCopy = () => fileKind('SQLite', 'db', (path, write) => openSqliteDestination(path, { write }));
export const duckdbCopy = () => fileKind('DuckDB', 'duckdb', (path, write) => openDuckdbDestination(path, { write }));

/** A PostgreSQL copy in a scratch database on `serverUrl`'s server. */
export async function postgresCopy(serverUrl: string): Promise<CopyKind> {
  const { default: pg } = (await import('pg')) as unknown as { default: { Client: new (config: { connectionString: string }) => { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> } } };
  const database = `loadfeed_bench_verify_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return {
    name: 'PostgreSQL',
    async open(write) {
      if (write) {
        await admin(`DROP DATABASE IF EXISTS ${database}`);
        await admin(`CREATE DATABASE ${database}`);
      }
      return openPostgresDestination({ connectionString: url.toString(), write });
    },
    remove: () => admin(`DROP DATABASE IF EXISTS ${database}`),
  };
}

export async function verifyAgainstSync(kind: CopyKind, rows: number): Promise<VerifyResult> {
  const { client } = await fixture(rows, 1, 1_000_000_000, 1000);
  await kind.remove();
  try {
    const copy = await kind.open(true);
    let start = performance.now();
    let cpuStart = cpuMs();
    await syncLoads({ client: client(), destination: copy });
    const syncMs = performance.now() - start;
    const syncCpuMs = cpuMs() - cpuStart;
    await copy.close();

    const reader = await kind.open(false);
    gc();
    const before = inUse();
    let retained = 0;
    // A full GC of a heap that holds the whole mock feed costs more the larger the feed: the samples'
    // time is the benchmark's, not verify's, so it is taken off verify's.
    let samplingMs = 0;
    let samplingCpuMs = 0;
    const sample = () => {
      const sampleStart = performance.now();
      const sampleCpuStart = cpuMs();
      gc();
      retained = Math.max(retained, inUse() - before);
      samplingMs += performance.now() - sampleStart;
      samplingCpuMs += cpuMs() - sampleCpuStart;
    };
    start = performance.now();
    cpuStart = cpuMs();
    const report = await verifyCopy({ client: client(), copy: reader, onProgress: ({ pages }) => void (pages % 25 === 0 && sample()) });
    const verifyMs = performance.now() - start - samplingMs;
    const verifyCpuMs = cpuMs() - cpuStart - samplingCpuMs;
    sample();
    await reader.close();
    return { rows, syncMs, verifyMs, syncCpuMs, verifyCpuMs, retainedMb: mb(retained), complete: report.complete };
  } finally {
    await kind.remove();
  }
}
