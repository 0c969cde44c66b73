// Shared by the parts of `npm run bench:horizon` (horizon.ts): the run's settings and how it prints.
import type pg from 'pg';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = 8;
export const UNLIMITED = 2_000_000_000;
export const log = (line = ''): void => void process.stdout.write(`${line}\n`);

export const percentile = (sorted: number[], share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** What each part measures on: the bench database, its pool, and the measured customer. */
export interface HorizonBench {
  pool: pg.Pool;
  /** The bench database's URL, for connections of their own. */
  url: string;
  customerId: string;
}

/** The customer's horizon lag now, in ms, sampled by the lag parts. */
export async function lagOf(pool: pg.Pool, customerId: string): Promise<number> {
  const { rows } = await pool.query<{ lag_ms: number }>('SELECT extract(epoch FROM clock_timestamp() - feed_settled_through($1::bigint)) * 1000 AS lag_ms', [customerId]);
  return Number(rows[0]!.lag_ms);
}
