// Throughput and latency under load, with autocannon: 10 connections, a warm-up, then the measured run.
import autocannon from 'autocannon';

export const CONNECTIONS = 10;

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses other than 2xx, errors and timeouts: a measurement with any is not comparable. */
  failures: number;
}

export async function measureLoad(url: string, key: string, { seconds, warmupSeconds }: { seconds: number; warmupSeconds: number }): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${key}` };
  await autocannon({ url, connections: CONNECTIONS, duration: warmupSeconds, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
