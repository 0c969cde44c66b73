// What authentication and the rate limit add to a request: the route's admission (the key's format,
// then one round trip that looks the key up by hash, counts the request in its rolling window and fixes
// the feed's horizon), timed one request after another on an idle server, as the median of many.
import type pg from 'pg';
import { DEFAULT_RATE_LIMIT } from '@loadfeed/spec';
import { admitRequest } from '../../dist/admission/admit-request.js';
import { isWellFormedKey } from '../../dist/admission/key-format.js';

export interface StepCost {
  medianMs: number;
  p99Ms: number;
}

export async function authAndRateLimitCost(pool: pg.Pool, key: string, iterations: number): Promise<StepCost> {
  const timings: number[] = [];
  for (let round = 0; round < iterations; round++) {
    const started = performance.now();
    if (!isWellFormedKey(key)) throw new Error('the benchmark key is malformed');
    const admission = await admitRequest(pool, key, DEFAULT_RATE_LIMIT);
    if (!admission) throw new Error('the benchmark key is unknown');
    if (!admission.decision.admitted) throw new Error('the benchmark key was rate limited; its limit should be huge');
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { medianMs: timings[Math.floor(timings.length / 2)]!, p99Ms: timings[Math.floor(timings.length * 0.99)]! };
}
