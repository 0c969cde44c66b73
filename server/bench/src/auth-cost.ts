// What authentication and the rate limit add to a request: the two steps the route runs before its
// query (the key's format and its lookup by hash; the count in the key's rolling window), timed one
// request after another on an idle server, as the median of many.
import type pg from 'pg';
import { findActiveKey } from '../../dist/auth/credentials.js';
import { isWellFormedKey } from '../../dist/auth/key-format.js';
import { countRequest } from '../../dist/rate-limit/window.js';

export interface StepCost {
  medianMs: number;
  p99Ms: number;
}

export async function authAndRateLimitCost(pool: pg.Pool, key: string, iterations: number): Promise<StepCost> {
  const timings: number[] = [];
  for (let round = 0; round < iterations; round++) {
    const started = performance.now();
    if (!isWellFormedKey(key)) throw new Error('the benchmark key is malformed');
    const now = new Date();
    const credentials = await findActiveKey(pool, key, now);
    if (!credentials) throw new Error('the benchmark key is unknown');
    const decision = await countRequest(pool, credentials.keyId, credentials.rateLimit ?? 10, now);
    if (!decision.admitted) throw new Error('the benchmark key was rate limited; its limit should be huge');
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { medianMs: timings[Math.floor(timings.length / 2)]!, p99Ms: timings[Math.floor(timings.length * 0.99)]! };
}
