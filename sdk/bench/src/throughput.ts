// Simulated time: a sync of N rows at 10 requests a minute against the physical limit, ceil(N / pageSize)
// requests at 10 a minute, and the 429s it met (none expected: pacing reads the headers).
import { syncLoads } from '@loadfeed/sdk';
import { fixture } from './fixtures.js';

export interface ThroughputResult {
  rows: number;
  perWrite: number;
  requests: number;
  physicalRequests: number;
  simulatedMinutes: number;
  physicalMinutes: number;
  ratio: number;
  rateLimited: number;
  exact: boolean;
}

export async function throughput(rows: number, perWrite: number, pageSize: number, limitPerMinute: number): Promise<ThroughputResult> {
  const { clock, mock, client } = await fixture(rows, perWrite, limitPerMinute);
  const copy = new Map<string, string>();
  const start = clock.now();
  const summary = await syncLoads({
    client: client(),
    pageSize,
    upsert: (batch) => {
      for (const row of batch) copy.set(row.loadNumber, row.updatedAt);
    },
  });
  const simulatedMinutes = (clock.now() - start) / 60_000;
  const physicalRequests = Math.ceil(rows / pageSize);
  const physicalMinutes = physicalRequests / limitPerMinute;
  const served = mock.loads();
  return {
    rows,
    perWrite,
    requests: summary.requests,
    physicalRequests,
    simulatedMinutes,
    physicalMinutes,
    ratio: simulatedMinutes / physicalMinutes,
    rateLimited: mock.stats.rateLimited,
    exact: served.length === copy.size && served.every((load) => copy.get(load.loadNumber) === load.updatedAt),
  };
}
