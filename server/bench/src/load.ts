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

/** Requests a server serves before it is measured (BENCH_WARMUP_REQUESTS), within WARMUP_MAX_SECONDS. */
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 1_500);
const WARMUP_MAX_SECONDS = 20;

/**
 * `warmupSeconds` of load, then more until the server has served WARMUP_REQUESTS (at most WARMUP_MAX_SECONDS
 * in all), the same for every server. Each round starts its server afresh, and V8 compiles a server's hot
 * code after it has run it many times: a warm-up of seconds alone ends, on a busy machine, before that (our
 * server's CPU per page-1 request was 1.39 ms after 2 s and 0.98 ms after 15 s, the bare server's 0.50 and
 * 0.48), and the run measures the compiler. A server in service runs for days.
 */
async function warmUp(url: string, headers: Record<string, string>, warmupSeconds: number): Promise<void> {
  const first = await autocannon({ url, connections: CONNECTIONS, duration: warmupSeconds, headers });
  const remaining = WARMUP_REQUESTS - first.requests.total;
  if (remaining <= 0) return;
  const perSecond = Math.max(1, first.requests.total / warmupSeconds);
  const seconds = Math.min(WARMUP_MAX_SECONDS - warmupSeconds, Math.ceil(remaining / perSecond));
  if (seconds > 0) await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
}

export async function measureLoad(
  url: string,
  key: string,
  cpuMs: { server: () => number; database: () => number },
  { seconds, warmupSeconds }: { seconds: number; warmupSeconds: number },
): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${key}` };
  await warmUp(url, headers, warmupSeconds);
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
