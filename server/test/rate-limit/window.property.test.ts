// Random request times on a simulated database clock, spread over several instances (pools): for limits up
// to 1,000 the admitted requests and every header equal the reference rolling window; above, the
// per-second window never admits more than the limit in any rolling 60 s, refuses at most 1 s early, and
// its headers are at most 1 s off.
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomer } from '../../src/customers/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/keys/keys.js';
import type { RateDecision } from '../../src/rate-limit/window.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { countIn, ReferenceWindow, WINDOW_MS } from './reference-window.js';
import { admitAt, admitManyAt } from './simulated-window.js';

const T0 = Date.parse('2026-06-15T12:00:00.000Z');
const INSTANCES = 3;

/** Requests as gaps between database clock readings (0: the same millisecond) and the instance serving each. */
function requestsArbitrary(maxLength: number, maxGapMs: number) {
  return fc.array(fc.record({ gapMs: fc.oneof(fc.constant(0), fc.nat(maxGapMs)), instance: fc.nat(INSTANCES - 1) }), { minLength: 1, maxLength });
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
    const limitAndRequests = fc
      .oneof({ arbitrary: fc.integer({ min: 1, max: 20 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 1_000 }), weight: 1 })
      .chain((limit) => fc.tuple(fc.constant(limit), requestsArbitrary(Math.min(2 * limit + 20, 1_500), Math.max(50, Math.floor(150_000 / limit)))));
    await fc.assert(
      fc.asyncProperty(limitAndRequests, async ([limit, requests]) => {
        const served = await run(limit, requests);
        const reference = new ReferenceWindow(limit);
        for (const { at, decision } of served) {
          const expected = reference.request(at);
          expect({ at, admitted: decision.admitted, remaining: decision.remaining, resetAt: decision.resetAt, retryAfter: decision.retryAfter }).toEqual({ at, retryAfter: undefined, ...expected });
        }
      }),
      { numRuns: 25 },
    );
  });

  /** The guarantees of the per-second window over one run. */
  function checkCoarse(limit: number, served: { at: number; decision: RateDecision }[]): void {
    const admitted: number[] = [];
    for (const { at, decision } of served) {
      const exactCount = countIn(admitted, at - WINDOW_MS, at);
      if (decision.admitted) {
        // Never more than the limit in the rolling 60 s that ends with an admitted request.
        expect(exactCount + 1).toBeLessThanOrEqual(limit);
        admitted.push(at);
        continue;
      }
      // Refused at most 1 s early: the 61 s before it hold the limit.
      expect(countIn(admitted, at - WINDOW_MS - 1_000, at)).toBeGreaterThanOrEqual(limit);
      // Remaining counts the exact window, or up to 1 s more of it.
      expect(limit - decision.remaining).toBeGreaterThanOrEqual(Math.min(limit, exactCount));
      // Retry-After: no sooner than the exact window admits, at most 1 s later.
      const inWindow = admitted.filter((stamp) => stamp > at - WINDOW_MS);
      const exactWaitMs = inWindow.length >= limit ? inWindow[inWindow.length - limit]! + WINDOW_MS - at : 0;
      expect(decision.retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(exactWaitMs / 1000)));
      expect(decision.retryAfter).toBeLessThanOrEqual(Math.max(1, Math.ceil((exactWaitMs + 999) / 1000)));
      // Reset: at most 1 s after the exact window's oldest request leaves.
      if (inWindow.length > 0) expect(decision.resetAt * 1000).toBeLessThanOrEqual(inWindow[0]! + WINDOW_MS + 1_000);
    }
  }

  it('above 1,000 a minute: never more than the limit in any rolling 60 s, refusals at most 1 s early, headers within 1 s', async () => {
    const limitAndRequests = fc
      .integer({ min: 1_001, max: 1_400 })
      .chain((limit) => fc.tuple(fc.constant(limit), requestsArbitrary(2 * limit, 120)));
    await fc.assert(
      fc.asyncProperty(limitAndRequests, async ([limit, requests]) => {
        checkCoarse(limit, await run(limit, requests));
      }),
      { numRuns: 6 },
    );
  });

  it('at 100,000 a minute: never more than the limit in any rolling 60 s, refusals at most 1 s early, headers within 1 s', async () => {
    const limit = 100_000;
    // Bursts of requests (several a millisecond, or a few milliseconds apart) with pauses between them:
    // enough to fill the window and be refused, and to see seconds leave it.
    const burst = fc.record({ requests: fc.integer({ min: 1, max: 40_000 }), perMs: fc.integer({ min: 1, max: 40 }), pauseMs: fc.nat(70_000) });
    await fc.assert(
      fc.asyncProperty(fc.array(burst, { minLength: 3, maxLength: 6 }), async (bursts) => {
        const times: number[] = [];
        let at = T0;
        for (const { requests, perMs, pauseMs } of bursts) {
          at += pauseMs;
          for (let index = 0; index < requests; index += 1) times.push(at + Math.floor(index / perMs));
          at = times[times.length - 1]!;
        }
        const { id } = await createKey(instances[0]!, 'acme', { rateLimit: limit });
        const decisions = await admitManyAt(instances[0]!, id, limit, times);
        checkCoarse(limit, times.map((stamp, index) => ({ at: stamp, decision: decisions[index]! })));
      }),
      {
        numRuns: 2,
        // One run that fills the window and is refused, whatever else is drawn.
        examples: [[[{ requests: 40_000, perMs: 40, pauseMs: 0 }, { requests: 40_000, perMs: 40, pauseMs: 20_000 }, { requests: 30_000, perMs: 40, pauseMs: 10_000 }, { requests: 10_000, perMs: 2, pauseMs: 0 }]]],
      },
    );
  });
});
