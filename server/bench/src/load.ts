// Throughput and latency under load, with autocannon: 10 connections, a warm-up, then the measured run.
import autocannon from 'autocannon';

export const CONNECTIONS = 10;

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU milliseconds the server process spent per request. */
  serverCpuMsPerRequest: number;
  /** CPU milliseconds PostgreSQL's processes spent per request. */
  databaseCpuMsPerRequest: number;
  /** Responses other than 2xx, errors and timeouts: a measurement with any is not comparable. */
  failures: number;
}

export async function measureLoad(
  url: string,
  key: string,
  cpuMs: { server: () => number; database: () => number },
  { seconds, warmupSeconds }: { seconds: number; warmupSeconds: number },
): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${key}` };
  await autocannon({ url, connections: CONNECTIONS, duration: warmupSeconds, headers });
  const before = { server: cpuMs.server(), database: cpuMs.database() };
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  const requests = Math.max(1, result.requests.total);
  return {
    serverCpuMsPerRequest: (cpuMs.server() - before.server) / requests,
    databaseCpuMsPerRequest: (cpuMs.database() - before.database) / requests,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** Per figure, the median of several rounds. */
export function medianResult(rounds: readonly LoadResult[]): LoadResult {
  const median = (pick: (result: LoadResult) => number): number => {
    const values = rounds.map(pick).sort((a, b) => a - b);
    const middle = Math.floor(values.length / 2);
    return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
  };
  return {
    requestsPerSecond: median((result) => result.requestsPerSecond),
    p50Ms: median((result) => result.p50Ms),
    p99Ms: median((result) => result.p99Ms),
    serverCpuMsPerRequest: median((result) => result.serverCpuMsPerRequest),
    databaseCpuMsPerRequest: median((result) => result.databaseCpuMsPerRequest),
    failures: rounds.reduce((sum, result) => sum + result.failures, 0),
  };
}
