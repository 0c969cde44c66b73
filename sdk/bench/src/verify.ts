// verifyCopy of a SQLite copy against the first sync that made it, in the same run: its time as a ratio of
// the sync's, and what it keeps while it reads (the heap after GC, sampled every 25 pages) at two sizes of
// the feed, so that what grows with the feed shows as bytes a row.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncLoads, verifyCopy } from '@loadfeed/sdk';
import { openSqliteDestination } from '@loadfeed/sdk/destinations';
import { fixture, mb } from './fixtures.js';

export interface VerifyResult {
  rows: number;
  syncMs: number;
  verifyMs: number;
  /** The largest heap in use above the one before verify started, after GC, in MB. */
  retainedMb: number;
  complete: boolean;
}

const gc = () => (globalThis as unknown as { gc: () => void }).gc();
const inUse = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

export async function verifyAgainstSync(rows: number): Promise<VerifyResult> {
  const { client } = await fixture(rows, 1, 1_000_000_000, 1000);
  const path = join(tmpdir(), `loadfeed-bench-verify-${process.pid}.db`);
  rmSync(path, { force: true });
  try {
    const copy = await openSqliteDestination(path);
    let start = performance.now();
    await syncLoads({ client: client(), destination: copy });
    const syncMs = performance.now() - start;
    await copy.close();

    const reader = await openSqliteDestination(path, { write: false });
    gc();
    const before = inUse();
    let retained = 0;
    const sample = () => {
      gc();
      retained = Math.max(retained, inUse() - before);
    };
    start = performance.now();
    const report = await verifyCopy({ client: client(), copy: reader, onProgress: ({ pages }) => void (pages % 25 === 0 && sample()) });
    const verifyMs = performance.now() - start;
    sample();
    await reader.close();
    return { rows, syncMs, verifyMs, retainedMb: mb(retained), complete: report.complete };
  } finally {
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
  }
}
