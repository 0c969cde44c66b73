// Random request times on a simulated database clock, spread over several instances (pools): for limits up
// to 1,000 the admitted requests and every header equal the reference rolling window; above, the
// per-second window never admits more than the limit in any rolling window, refuses at most 1 s early, and
// its headers are at most 1 s off.
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import type { RateDecision } from '../../src/admission/rate-window.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { countIn, countUpTo, ReferenceWindow, WINDOW_MS } from './reference-window.js';
import { admitAt, admitManyAt } from './simulated-window.js';

const T0 = Date.parse('2026-06-15T12:00:00.000Z');
const INSTANCES = 3;

/** Requests as gaps between database clock readings (0: the same millisecond) and the instance serving each. */
function requestsArbitrary(minLength: number, maxLength: number, maxGapMs: number) {
  return fc.array(fc.record({ gapMs: fc.oneof(fc.constant(0), fc.nat(maxGapMs)), instance: fc.nat(INSTANCES - 1) }), { minLength, maxLength, size: 'max' });
}

describe('the rate window against the reference model', () => {
  const database = useTestDatabase();
  const instances: pg.Pool[] = [];

  beforeAll(async () => {
    await migrate(database.url);
    for (let index = 0; index < INSTANCES; index += 1) instances.push(createPool(database.url, { max: 1 }));
    await addCustomer(instances[0]!, 'acme');
  });
  afterAll(async () => {
    await Promise.all(instances.map((pool) => pool.end()));
  });

  async function run(limit: number, requests: { gapMs: number; instance: number }[]): Promise<{ at: number; decision: RateDecision }[]> {
    const { id } = await createKey(instances[0]!, 'acme', { rateLimit: limit });
    let at = T0;
    const served = [];
    for (const { gapMs, instance } of requests) {
      at += gapMs;
      served.push({ at, decision: await admitAt(instances[instance]!, id, limit, at) });
    }
    return served;
  }

  it('for limits 1..1,000: admits what the reference admits, with the same Remaining, Reset and Retry-After', async () => {
    let refusals = 0;
    const limitAndRequests = fc
      .oneof({ arbitrary: fc.integer({ min: 1, max: 20 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 1_000 }), weight: 1 })
      .chain((limit) => fc.tuple(fc.constant(limit), requestsArbitrary(1, Math.min(2 * limit + 20, 1_500), Math.max(50, Math.floor(150_000 / limit)))));
    await fc.assert(
      fc.asyncProperty(limitAndRequests, async ([limit, requests]) => {
        const served = await run(limit, requests);
        refusals += served.filter(({ decision }) => !decision.admitted).length;
        const reference = new ReferenceWindow(limit);
        for (const { at, decision } of served) {
          const expected = reference.request(at);
          expect({ at, admitted: decision.admitted, remaining: decision.remaining, resetAt: decision.resetAt, retryAfter: decision.retryAfter }).toEqual({ at, retryAfter: undefined, ...expected });
        }
      }),
      { numRuns: 15 },
    );
    // The runs reached the limit, so refusals and their Retry-After were compared too.
    expect(refusals).toBeGreaterThan(0);
  });

  /** The guarantees of the per-second window over one run. */
  function checkCoarse(limit: number, served: { at: number; decision: RateDecision }[]): number {
    const admitted: number[] = [];
    let refused = 0;
    for (const { at, decision } of served) {
      const exactCount = countIn(admitted, at - WINDOW_MS, at);
      if (decision.admitted) {
        // Never more than the limit in the rolling window that ends with an admitted request.
        expect(exactCount + 1).toBeLessThanOrEqual(limit);
        admitted.push(at);
        continue;
      }
      refused += 1;
      // Refused at most 1 s early: the window and the second before it hold the limit.
      expect(countIn(admitted, at - WINDOW_MS - 1_000, at)).toBeGreaterThanOrEqual(limit);
      // Remaining counts the exact window, or up to 1 s more of it.
      expect(limit - decision.remaining).toBeGreaterThanOrEqual(Math.min(limit, exactCount));
      // Retry-After: no sooner than the exact window admits, at most 1 s later.
      const oldestInWindow = countUpTo(admitted, at - WINDOW_MS);
      const exactWaitMs = exactCount >= limit ? admitted[admitted.length - limit]! + WINDOW_MS - at : 0;
      expect(decision.retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(exactWaitMs / 1000)));
      expect(decision.retryAfter).toBeLessThanOrEqual(Math.max(1, Math.ceil((exactWaitMs + 999) / 1000)));
      // Reset: at most 1 s after the exact window's oldest request leaves.
      if (exactCount > 0) expect(decision.resetAt * 1000).toBeLessThanOrEqual(admitted[oldestInWindow]! + WINDOW_MS + 1_000);
    }
    return refused;
  }

  it('above 1,000 a minute: never more than the limit in any rolling window, refusals at most 1 s early, headers within 1 s', async () => {
    const limitAndRequests = fc
      .integer({ min: 1_001, max: 1_400 })
      .chain((limit) => fc.tuple(fc.constant(limit), requestsArbitrary(limit + 1, 2 * limit, 60)));
    let refusals = 0;
    await fc.assert(
      fc.asyncProperty(limitAndRequests, async ([limit, requests]) => {
        // Counted by a loop in the database, as the 100,000 case below: a round trip each is the slow part.
        let at = T0;
        const times = requests.map(({ gapMs }) => (at += gapMs));
        const { id } = await createKey(instances[0]!, 'acme', { rateLimit: limit });
        const decisions = await admitManyAt(instances[0]!, id, limit, times);
        refusals += checkCoarse(limit, times.map((stamp, index) => ({ at: stamp, decision: decisions[index]! })));
      }),
      { numRuns: 6 },
    );
    expect(refusals).toBeGreaterThan(0);
  });

  it('at 100,000 a minute: never more than the limit in any rolling window, refusals at most 1 s early, headers within 1 s', { timeout: 120_000 }, async () => {
    const limit = 100_000;
    // Bursts of requests (several a millisecond, or a few milliseconds apart) with pauses between them:
    // enough to fill the window and be refused, and to see seconds leave it.
    let refusals = 0;
    const burst = fc.record({ requests: fc.integer({ min: 1, max: 30_000 }), perMs: fc.integer({ min: 1, max: 40 }), pauseMs: fc.nat(RATE_WINDOW_MS + RATE_WINDOW_MS / 6) });
    await fc.assert(
      fc.asyncProperty(fc.array(burst, { minLength: 2, maxLength: 5 }), async (bursts) => {
        const times: number[] = [];
        let at = T0;
        for (const { requests, perMs, pauseMs } of bursts) {
          at += pauseMs;
          for (let index = 0; index < requests; index += 1) times.push(at + Math.floor(index / perMs));
          at = times[times.length - 1]!;
        }
        const { id } = await createKey(instances[0]!, 'acme', { rateLimit: limit });
        const decisions = await admitManyAt(instances[0]!, id, limit, times);
        refusals += checkCoarse(limit, times.map((stamp, index) => ({ at: stamp, decision: decisions[index]! })));
      }),
      {
        numRuns: 1,
        // One run that fills the window and is refused, whatever else is drawn.
        examples: [[[{ requests: 50_000, perMs: 50, pauseMs: 0 }, { requests: 50_000, perMs: 50, pauseMs: 20_000 }, { requests: 10_000, perMs: 2, pauseMs: 0 }]]],
      },
    );
    expect(refusals).toBeGreaterThan(0);
  });
});
