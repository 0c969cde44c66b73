// Page-number stretches against the mock (msw handlers over an in-memory feed): a deployment that does not
// say how far its feed is settled gets the key walk; one whose X-Feed-Settled-Through claims more than it
// keeps (later writes stamped at or before it), or drops it part-way, loses no row.
import { RESPONSE_HEADERS } from '@loadfeed/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { syncLoads } from '../src/index.js';
import type { MockSetup } from './helpers.js';
import { createCopy, loadInput, mockSetup } from './helpers.js';

const HEADER = RESPONSE_HEADERS.feedSettledThrough;

/** Requests as [page, pageSize], and the customer's loads in writes of `perWrite` rows (one updatedAt each). */
async function feed(setup: MockSetup, rows: number, perWrite: number, asked: [number, number][]) {
  for (let first = 1; first <= rows; first += perWrite) {
    setup.mock.upsert(Array.from({ length: Math.min(perWrite, rows - first + 1) }, (_, index) => loadInput(first + index)));
    await setup.clock.advance(1);
  }
  setup.mock.beforeRequest((request) => {
    const url = new URL(request.url);
    asked.push([Number(url.searchParams.get('page')), Number(url.searchParams.get('pageSize'))]);
  });
}

describe('page-number stretches', () => {
  it('a deployment without X-Feed-Settled-Through gets the key walk: page 1 every time', async () => {
    const setup = mockSetup({ mock: { rateLimitPerMinute: 1_000_000, settledThroughHeader: false } });
    const asked: [number, number][] = [];
    await feed(setup, 3_000, 37, asked);
    const copy = createCopy();
    const summary = await syncLoads({ client: setup.client, upsert: copy.upsert, pageSize: 100 });
    expect(copy.differences(setup.mock.loads())).toEqual([]);
    expect(asked.every(([page, pageSize]) => page === 1 && pageSize === 100)).toBe(true);
    // Each page reads again the tail of the write its last row belongs to: about 1.3 times ceil(N / 99) + 1.
    expect(summary.requests).toBeGreaterThan(1.25 * (Math.ceil(3_000 / 99) + 1));
    expect(setup.violations).toEqual([]);
  });

  it('the same feed, settled: pages by number and checks, within 1.05 times ceil(N / (pageSize - 1)) + 1', async () => {
    const setup = mockSetup({ mock: { rateLimitPerMinute: 1_000_000 } });
    const asked: [number, number][] = [];
    await feed(setup, 3_000, 37, asked);
    const copy = createCopy();
    const summary = await syncLoads({ client: setup.client, upsert: copy.upsert, pageSize: 100 });
    expect(copy.differences(setup.mock.loads())).toEqual([]);
    expect(asked.some(([page]) => page > 1)).toBe(true);
    expect(asked.filter(([, pageSize]) => pageSize === 1).length).toBeGreaterThan(0);
    expect(summary.requests).toBeLessThanOrEqual(Math.floor(1.05 * (Math.ceil(3_000 / 99) + 1)));
  });

  it('a first copy of distinct updatedAt values over 32 pages reads by page number, within ceil(N / (pageSize - 1)) + 1', async () => {
    // The key walk's one request fewer does not pay there: the server counts every row left on each of its pages.
    const setup = mockSetup({ mock: { rateLimitPerMinute: 1_000_000 } });
    const asked: [number, number][] = [];
    await feed(setup, 2_000, 1, asked);
    const copy = createCopy();
    const summary = await syncLoads({ client: setup.client, upsert: copy.upsert, pageSize: 50 });
    expect(copy.differences(setup.mock.loads())).toEqual([]);
    expect(asked.filter(([page]) => page > 1).length).toBeGreaterThan(30);
    expect(summary.requests).toBeLessThanOrEqual(Math.ceil(2_000 / 49) + 1);
  });

  it('a customer whose loads change before every request pays a bounded number of requests over the key walk', async () => {
    const requestsWith = async (settledThroughHeader: boolean) => {
      const setup = mockSetup({ mock: { rateLimitPerMinute: 1_000_000, settledThroughHeader } });
      await feed(setup, 3_000, 37, []);
      let edit = 0;
      // Before every request an update moves a row past the first page (so the count from a stretch's anchor
      // stays, and a stretch sees it only at a check): every check fails.
      setup.mock.beforeRequest(() => {
        edit += 1;
        const loads = setup.mock.loads();
        const moved = loads[100 + ((edit * 37) % (loads.length - 100))]!;
        setup.mock.upsert([{ ...loadInput(0), ...moved, miles: `${3_000 + edit}.5` }]);
      });
      const copy = createCopy();
      const summary = await syncLoads({ client: setup.client, upsert: copy.upsert, pageSize: 100, overlapMs: 0 });
      expect(copy.differences(setup.mock.loads())).toEqual([]);
      return summary.requests;
    };
    const keyWalk = await requestsWith(false);
    const stretched = await requestsWith(true);
    // One failed stretch (here the whole feed, 30 pages and a check), then a check and two pages a try, the
    // tries after 2, 4, 8… pages by key.
    expect(stretched).toBeLessThanOrEqual(keyWalk + 31 + 3 * Math.ceil(Math.log2(keyWalk)));
  });

  const eventArbitrary = fc.record({
    /** Applied just before this request (1-based) is answered. */
    beforeRequest: fc.integer({ min: 2, max: 60 }),
    kind: fc.constantFrom('update' as const, 'update' as const, 'insert' as const, 'remove' as const),
    /** Positions in the feed's order, modulo its size: low ones are rows the walk has already read. */
    positions: fc.array(fc.nat({ max: 1_000 }), { minLength: 1, maxLength: 4 }),
  });

  const scenarioArbitrary = fc.record({
    rows: fc.integer({ min: 10, max: 200 }),
    perWrite: fc.constantFrom(1, 3, 7, 20),
    pageSize: fc.constantFrom(2, 3, 5, 10),
    events: fc.array(eventArbitrary, { maxLength: 15 }),
    /** How the header lies: settled this many ms further than the feed is (0: it tells the truth). */
    claimsAheadMs: fc.constantFrom(0, 0, 1, 60_000),
    /** The request after which the header is no longer sent (an instance of an older release), if any. */
    droppedFrom: fc.option(fc.integer({ min: 2, max: 40 }), { nil: undefined }),
  });

  it('a header that claims more than the feed keeps, or goes missing part-way, loses no row (property)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        let request = 0;
        const setup: MockSetup = mockSetup({
          mock: { rateLimitPerMinute: 1_000_000 },
          client: {
            async fetch(incoming) {
              const response = await setup.mock.fetch(incoming);
              const headers = new Headers(response.headers);
              if (scenario.droppedFrom !== undefined && request >= scenario.droppedFrom) headers.delete(HEADER);
              else if (headers.has(HEADER)) headers.set(HEADER, new Date(Date.parse(headers.get(HEADER)!) + scenario.claimsAheadMs).toISOString());
              return new Response(response.body, { status: response.status, headers });
            },
          },
        });
        await feed(setup, scenario.rows, scenario.perWrite, []);
        const removed = new Set<string>();
        let next = scenario.rows + 1;
        let edit = 0;
        setup.mock.beforeRequest(() => {
          request += 1;
          for (const event of scenario.events.filter((candidate) => candidate.beforeRequest === request)) {
            const current = setup.mock.loads();
            const picked = [...new Set(event.positions.map((position) => current[position % current.length]!))];
            if (event.kind === 'insert') setup.mock.upsert(event.positions.map(() => loadInput(next++)));
            else if (event.kind === 'remove') {
              for (const load of picked) removed.add(load.loadNumber);
              setup.mock.remove(picked.map((load) => load.loadNumber));
            } else {
              edit += 1;
              setup.mock.upsert(picked.map((load) => ({ ...loadInput(0), ...load, miles: `${2_000 + edit}.5` })));
            }
          }
        });
        const copy = createCopy();
        await syncLoads({ client: setup.client, upsert: copy.upsert, pageSize: scenario.pageSize, overlapMs: 0 });
        // A sync never deletes from the copy: a removed row may stay there, and nothing else may differ.
        const differences = copy.differences(setup.mock.loads());
        expect(differences.filter((difference) => !(difference.endsWith(' extra') && removed.has(difference.split(' ')[0]!)))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
