// bench:horizon, part 3: the horizon while another session holds 5,000 advisory locks of its own (pg_locks
// then has 5,000 more rows to read), 8 connections at once.
import pg from 'pg';
import { CONNECTIONS, type HorizonBench, log, percentile, SECONDS } from './common.js';

export async function crowdedLocks({ pool, url, customerId }: HorizonBench): Promise<void> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query('SELECT count(pg_advisory_lock(k)) FROM generate_series(1::bigint, 5000::bigint) AS k');
  // Requests of 8 connections at once, as an instance serves them: the horizon's statement against SELECT 1.
  async function callsOf(sql: string, values: unknown[]): Promise<number[]> {
    const took: number[] = [];
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await pool.query(sql, values);
          took.push(performance.now() - started);
        }
      }),
    );
    return took.sort((a, b) => a - b);
  }
  const crowdedOne = await callsOf('SELECT 1', []);
  const crowdedHorizon = await callsOf('SELECT feed_settled_through($1::bigint)', [customerId]);
  await holder.end();
  log();
  log(`| ${CONNECTIONS} connections at once, 5,000 other advisory locks held | calls | median | p90 | p99 |`);
  log('|---|---:|---:|---:|---:|');
  for (const [label, took] of [['SELECT 1', crowdedOne], ['the horizon', crowdedHorizon]] as const) {
    log(`| ${label} | ${took.length} | ${percentile(took, 0.5).toFixed(3)} ms | ${percentile(took, 0.9).toFixed(3)} ms | ${percentile(took, 0.99).toFixed(3)} ms |`);
  }
  log(`| added median (goal <= 0.5 ms) | | ${(percentile(crowdedHorizon, 0.5) - percentile(crowdedOne, 0.5)).toFixed(3)} ms | | |`);
}
