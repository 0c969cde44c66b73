// The scale benchmark's first copy: the SDK's syncLoads from nothing (no cursor, the default strategy and
// page size, MAX_PAGE_SIZE=1000) of each customer, into the benchmark's own sink (a map of loadNumber to
// updatedAt, compared with the feed's count at the end), against ours. What it costs the server per row:
// the server process's CPU, and the CPU of the database backends that serve it (sampled from /proc while
// the copy runs, found by the application name the server's sessions give: other work does not count).
// A first copy whose cost per row grows with the customer is a sync that reads deep pages by skipping.
import { readFileSync } from 'node:fs';
import { createClient, syncLoads } from '@loadfeed/sdk';
import { createPool } from '../../dist/db/pool.js';
import { startServerProcess } from './processes.js';

export interface FirstCopyCost {
  rows: number;
  requests: number;
  seconds: number;
  /** CPU ms per 1,000 rows copied. */
  serverMsPerThousand: number;
  databaseMsPerThousand: number;
  exact: boolean;
}

/** Clock ticks per second of /proc's counters: 100 on Linux. */
const TICKS_PER_SECOND = 100;

function cpuMsOfProcess(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU of the backends of the server under test (those that name `application`), from the first sample
 * that saw each to the last: sampled every `everyMs`, so a backend that lives less than that is missed
 * (the server's pool keeps its connections for 30 s idle).
 */
function sampleBackends(url: string, application: string, everyMs = 250) {
  const sampler = createPool(url, { max: 1 });
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let running = true;
  const sample = async () => {
    const { rows } = await sampler.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1::text', [application]);
    for (const { pid } of rows) {
      const ms = cpuMsOfProcess(pid);
      if (ms === undefined) continue;
      if (!first.has(pid)) first.set(pid, ms);
      last.set(pid, ms);
    }
  };
  const loop = (async () => {
    while (running) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    /** Starts counting from now: a first sample of every backend there. */
    start: sample,
    async stop(): Promise<number> {
      running = false;
      await loop;
      await sample();
      await sampler.end();
      let total = 0;
      for (const [pid, ms] of last) total += ms - first.get(pid)!;
      return total;
    },
  };
}

/** One first copy of the customer whose key is `key`, `expected` loads in its feed. */
export async function firstCopyCost(url: string, cli: string, env: NodeJS.ProcessEnv, key: string, expected: number): Promise<FirstCopyCost> {
  // The server's sessions name themselves (node-postgres reads PGAPPNAME), so the sampler counts only them.
  const application = `scale-first-copy-${process.pid}-${Date.now()}`;
  const running = await startServerProcess(cli, ['start'], { ...env, PGAPPNAME: application });
  try {
    const client = createClient({ baseUrl: running.baseUrl, apiKey: key });
    // A request first, so that the server's pool has its connections and the sampler sees them.
    await client.listLoads({ pageSize: 1, poNumber: 'none' });
    const backends = sampleBackends(url, application);
    await backends.start();
    const serverBefore = running.cpuMs();
    const started = performance.now();
    const copy = new Map<string, string>();
    const summary = await syncLoads({
      client,
      upsert: (batch) => {
        for (const row of batch) copy.set(row.loadNumber, row.updatedAt);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const serverMs = running.cpuMs() - serverBefore;
    const databaseMs = await backends.stop();
    const perThousand = (ms: number) => (ms * 1000) / copy.size;
    return {
      rows: copy.size,
      requests: summary.requests,
      seconds,
      serverMsPerThousand: perThousand(serverMs),
      databaseMsPerThousand: perThousand(databaseMs),
      exact: copy.size === expected,
    };
  } finally {
    await running.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Each customer's first copy, `rounds` times (the customers alternate), and the growth per row from the small one to the big one. */
export async function reportFirstCopies(
  customers: { code: string; key: string; counts: number[] }[],
  url: string,
  cli: string,
  env: NodeJS.ProcessEnv,
  rounds: number,
  log: (line?: string) => void,
): Promise<void> {
  log('first copy (syncLoads from nothing, default options): CPU ms per 1,000 rows, server process + database backends');
  const results = new Map<string, FirstCopyCost[]>();
  for (let round = 0; round < rounds; round++) {
    for (const customer of round % 2 === 0 ? customers : [...customers].reverse()) {
      const result = await firstCopyCost(url, cli, env, customer.key, customer.counts[0]!);
      results.set(customer.code, [...(results.get(customer.code) ?? []), result]);
      log(
        `  ${customer.code} round ${round + 1}: ${result.rows} rows${result.exact ? '' : ' (NOT the feed count)'}, ${result.requests} requests, ${result.seconds.toFixed(0)} s; ` +
          `server ${result.serverMsPerThousand.toFixed(1)}, database ${result.databaseMsPerThousand.toFixed(1)}, both ${(result.serverMsPerThousand + result.databaseMsPerThousand).toFixed(1)}`,
      );
    }
  }
  const [small, big] = customers.map((customer) => results.get(customer.code)!);
  const both = (result: FirstCopyCost) => result.serverMsPerThousand + result.databaseMsPerThousand;
  const growth = (of: (result: FirstCopyCost) => number) => (median(big!.map(of)) / median(small!.map(of))).toFixed(2);
  log(
    `  growth per row, 1.5M / 150k (medians of ${rounds}): server ${growth((result) => result.serverMsPerThousand)}x, ` +
      `database ${growth((result) => result.databaseMsPerThousand)}x, both ${growth(both)}x, wall time per row ${growth((result) => result.seconds / result.rows)}x`,
  );
  log();
}
