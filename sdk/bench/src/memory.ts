// Peak heap above the baseline while a sync of N rows runs: the baseline is taken after the mock's
// dataset exists (it is the server's memory, not the SDK's), so what grows is the sync's own.
import { syncLoads } from '@loadfeed/sdk';
import { fixture, mb } from './fixtures.js';

export interface MemoryResult {
  rows: number;
  baselineMb: number;
  peakAboveBaselineMb: number;
  retainedAboveBaselineMb: number;
}

const collect = () => (globalThis as { gc?: () => void }).gc?.();

export async function memory(rows: number, perWrite: number, pageSize: number): Promise<MemoryResult> {
  const { mock, client } = await fixture(rows, perWrite, 1_000_000_000);
  mock.loads(); // builds the mock's window index now, so that it is part of the baseline
  collect();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let retained = baseline;
  let pages = 0;
  let handed = 0;
  await syncLoads({
    client: client(),
    pageSize,
    upsert: (batch) => {
      handed += batch.length;
    },
    onProgress: () => {
      pages += 1;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      if (pages % 1000 === 0) {
        collect();
        retained = Math.max(retained, process.memoryUsage().heapUsed);
      }
    },
  });
  if (handed < rows) throw new Error(`the memory run handed over ${handed} of ${rows} rows`);
  return {
    rows,
    baselineMb: mb(baseline),
    peakAboveBaselineMb: mb(peak - baseline),
    retainedAboveBaselineMb: mb(retained - baseline),
  };
}
