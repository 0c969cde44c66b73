// A property run against the real server: random writes between requests, injected 429s, 500s,
// connection resets (before and after the server saw the request), bodies cut short (the socket closed
// mid-body, or JSON cut under a matching Content-Length), and crashes with restarts. Every run must
// converge: the last, uninterrupted sync leaves the copy equal to what the server serves; and every
// failure that ends a sync is one of the SDK's errors, or the crash itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadfeedError, memoryCursorStore, syncLoads, type LoadRow } from '../../src/index.js';
import { createSimulatedClock } from '../../src/mock/index.js';
import { createCopy, loadInput } from '../helpers.js';
import { useTestServer } from './fixture.js';

const kit = useTestServer();

type Fault = '429' | '500' | 'reset-before' | 'reset-after' | 'cut-mid-body' | 'cut-json';

const FAULTS: Fault[] = ['429', '500', 'reset-before', 'reset-after', 'cut-mid-body', 'cut-json'];

/** The server's real response with its body cut in half: the socket closes there, or the length matches the cut. */
async function cut(response: Response, shape: 'cut-mid-body' | 'cut-json'): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const half = bytes.subarray(0, Math.floor(bytes.length / 2));
  const init = { status: response.status, headers: new Headers(response.headers) };
  if (shape === 'cut-json') {
    init.headers.set('content-length', String(half.length));
    return new Response(half, init);
  }
  // What Node's fetch gives when the socket closes mid-body.
  const closed = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(half);
      controller.error(closed);
    },
  });
  return new Response(body, init);
}

const eventArbitrary = fc.oneof(
  fc.record({ kind: fc.constant('update' as const), positions: fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 12 }) }),
  fc.record({ kind: fc.constant('insert' as const), count: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('fault' as const), fault: fc.constantFrom<Fault>(...FAULTS) }),
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
  it('random writes, 429s, 500s, connection resets, cut bodies and restarts always converge to an exact copy', async () => {
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
            if (event.fault === 'cut-mid-body' || event.fault === 'cut-json') return cut(await fetch(incoming), event.fault);
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
          // A cut body once ended a sync as a bare TypeError or SyntaxError, outside the error tree.
          if (!(outcome instanceof LoadfeedError)) expect(outcome).toEqual(new Error('crash'));
          expect(restarts).toBeLessThan(40);
        }
        expect(copy.differences(await customer.served())).toEqual([]);
      }),
      { numRuns: 25 },
    );
    expect(kit.violations).toEqual([]);
  }, 180_000);
});
