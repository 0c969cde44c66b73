// A property run against the real server: random writes between requests, injected 429s, 500s and
// connection resets (before and after the server saw the request), and crashes with restarts. Every run
// must converge: the last, uninterrupted sync leaves the copy equal to what the server serves.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryCursorStore, syncLoads, type LoadRow } from '../../src/index.js';
import { createSimulatedClock } from '../../src/mock/index.js';
import { createCopy, loadInput } from '../helpers.js';
import { useTestServer } from './fixture.js';

const kit = useTestServer();

type Fault = '429' | '500' | 'reset-before' | 'reset-after';

const eventArbitrary = fc.oneof(
  fc.record({ kind: fc.constant('update' as const), positions: fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 12 }) }),
  fc.record({ kind: fc.constant('insert' as const), count: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('fault' as const), fault: fc.constantFrom<Fault>('429', '500', 'reset-before', 'reset-after') }),
  fc.record({ kind: fc.constant('crash' as const) }),
);

const scenarioArbitrary = fc.record({
  initialWrites: fc.oneof(fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 80 }).map((size) => [size])),
  pageSize: fc.constantFrom(3, 5, 10),
  /** What happens just before request n (the index), if anything. */
  events: fc.array(fc.option(eventArbitrary, { freq: 2 }), { maxLength: 30 }),
});

const json = (status: number, body: unknown, headers: Record<string, string>) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe('chaos against the reference server (property)', () => {
  it('random writes, 429s, 500s, connection resets and restarts always converge to an exact copy', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const customer = await kit.customer();
        let next = 1;
        for (const size of scenario.initialWrites) {
          await kit.server.importLoads(customer.code, Array.from({ length: size }, () => loadInput(next++)));
        }
        let request = 0;
        let crashPending = false;
        let edit = 0;
        const chaoticFetch = async (incoming: Request): Promise<Response> => {
          const event = scenario.events[request++];
          if (event?.kind === 'insert') {
            await kit.server.importLoads(customer.code, Array.from({ length: event.count }, () => loadInput(next++)));
          } else if (event?.kind === 'update') {
            const served = await customer.served();
            edit += 1;
            const changed = event.positions.map((position) => {
              const { updatedAt: _kept, ...load } = served[position % served.length]!;
              return { ...load, miles: `${edit}.5` };
            });
            await kit.server.importLoads(customer.code, changed);
          } else if (event?.kind === 'crash') {
            crashPending = true;
          } else if (event?.kind === 'fault') {
            if (event.fault === '429') {
              return json(429, { error: 'Rate limit exceeded' }, { 'Retry-After': '2', 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' });
            }
            if (event.fault === '500') return json(500, { error: 'Internal server error' }, {});
            if (event.fault === 'reset-before') throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
            await fetch(incoming.clone());
            throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
          }
          return fetch(incoming);
        };
        const clock = createSimulatedClock();
        const client = customer.client({ fetch: chaoticFetch, clock });
        const copy = createCopy();
        const upsert = (rows: LoadRow[]) => {
          if (crashPending) {
            crashPending = false;
            throw new Error('crash');
          }
          copy.upsert(rows);
        };
        const cursorStore = memoryCursorStore();
        for (let restarts = 0; ; restarts += 1) {
          const outcome = await syncLoads({ client, upsert, cursorStore, pageSize: scenario.pageSize, overlapMs: 0 }).then(
            () => 'done' as const,
            (error: unknown) => error,
          );
          if (outcome === 'done') break;
          expect(restarts).toBeLessThan(40);
        }
        expect(copy.differences(await customer.served())).toEqual([]);
      }),
      { numRuns: 25 },
    );
    expect(kit.violations).toEqual([]);
  }, 180_000);
});
