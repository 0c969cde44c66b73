// What SPEC implies of a page (page-contract.ts): every page an honest feed serves passes, whatever its
// size, its number and its ties; each one-rule break of such a page is a fault; and a sync that meets one
// writes nothing of that page and keeps its cursor.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContractError, PageContractError, createClient, syncLoads, verifyCopy, type LoadRow, type Page } from '../src/index.js';
import { MOCK_API_KEY, createSimulatedClock } from '../src/mock/index.js';
import { pageFaults } from '../src/page-contract.js';
import { contractRow, pageOf, queryOf, sendJson, startHostileServer } from './hostile-server.js';

/** A feed of `count` rows in updatedAt order, `tie` rows an instant. */
const feedOf = (count: number, tie: number): LoadRow[] =>
  Array.from({ length: count }, (_, index) => contractRow(index + 1, { updatedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(index / tie) * 1000).toISOString() }));

function honestPage(feed: LoadRow[], number: number, size: number): Page {
  const start = (number - 1) * size;
  return { data: feed.slice(start, start + size), page: number, pageSize: size, totalCount: feed.length, hasMore: start + size < feed.length };
}

const scenario = fc
  .record({ count: fc.integer({ min: 0, max: 60 }), tie: fc.integer({ min: 1, max: 5 }), size: fc.integer({ min: 1, max: 12 }), number: fc.integer({ min: 1, max: 8 }) })
  .map((s) => ({ ...s, feed: feedOf(s.count, s.tie) }));

type Break = (page: Page) => Page | undefined;
const BREAKS: Record<string, Break> = {
  'a short page while hasMore': (page) => (page.hasMore ? { ...page, data: page.data.slice(0, -1) } : undefined),
  'hasMore false before the count ends': (page) => (page.hasMore ? { ...page, hasMore: false } : undefined),
  'hasMore true on the last page': (page) => (!page.hasMore ? { ...page, hasMore: true } : undefined),
  'a count that disagrees with the last page': (page) => (!page.hasMore && page.data.length > 0 ? { ...page, totalCount: page.totalCount + 1 } : undefined),
  'two rows of different instants swapped': (page) => {
    const index = page.data.findIndex((row, at) => at > 0 && row.updatedAt !== page.data[at - 1]!.updatedAt);
    if (index < 0) return undefined;
    const data = [...page.data];
    [data[index - 1], data[index]] = [data[index]!, data[index - 1]!];
    return { ...page, data };
  },
  'a loadNumber twice': (page) => (page.data.length < 2 ? undefined : { ...page, data: [...page.data.slice(0, -1), { ...page.data.at(-1)!, loadNumber: page.data[0]!.loadNumber, miles: '1.5' }] }),
};

describe('what SPEC implies of a page', () => {
  it('every page an honest feed serves passes, and each break of one is a fault (property)', () => {
    fc.assert(
      fc.property(scenario, fc.constantFrom(...Object.keys(BREAKS)), ({ feed, size, number }, name) => {
        const page = honestPage(feed, number, size);
        expect(pageFaults(page, number)).toEqual([]);
        const broken = BREAKS[name]!(page);
        if (broken) expect(pageFaults(broken, number).length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('a sync writes nothing of a page with a fault, keeps its cursor, and asks once more before judging', async () => {
    const feed = feedOf(30, 1);
    let requests = 0;
    const server = await startHostileServer((request, response) => {
      requests += 1;
      const since = queryOf(request.url!).get('updatedSince');
      const rows = feed.filter((row) => since === null || row.updatedAt >= since);
      // The second page from the first anchor on: one row short while hasMore says more follow.
      const data = since === null ? rows.slice(0, 10) : rows.slice(0, 9);
      sendJson(response, 200, pageOf(data, { pageSize: 10, totalCount: rows.length, hasMore: true }));
    });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, clock: createSimulatedClock({ start: Date.now() }) });
    const written: LoadRow[] = [];
    const saved: string[] = [];
    const error = await syncLoads({ client, pageSize: 10, upsert: (rows) => void written.push(...rows), cursorStore: { load: () => undefined, save: (cursor) => void saved.push(cursor) } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PageContractError);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as PageContractError).request).toBe(`page 1 from updatedSince=${feed[9]!.updatedAt} (asked twice)`);
    expect(written.map((row) => row.loadNumber)).toEqual(feed.slice(0, 10).map((row) => row.loadNumber));
    expect(saved).toEqual([feed[9]!.updatedAt]);
    expect(requests).toBe(3);
  });

  it('verifyCopy holds the pages it reads to the same rules: a short page while hasMore is an error, not a verdict', async () => {
    const feed = feedOf(30, 1);
    const server = await startHostileServer((request, response) => {
      const since = queryOf(request.url!).get('updatedSince');
      const rows = feed.filter((row) => since === null || row.updatedAt >= since);
      sendJson(response, 200, pageOf(rows.slice(0, 9), { pageSize: 10, totalCount: rows.length, hasMore: true }));
    });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, clock: createSimulatedClock({ start: Date.now() }) });
    const copy = { loadCursor: () => undefined, readRows: async () => [], async *loadNumbers() {} };
    const error = await verifyCopy({ client, copy, pageSize: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PageContractError);
    expect((error as PageContractError).violations[0]!.path).toBe('/data');
  });

  it('a page whose count disagrees once (a count in a statement of its own, under writes) is asked again, and the second answer is used', async () => {
    const feed = feedOf(5, 1);
    let requests = 0;
    const server = await startHostileServer((_request, response) => {
      requests += 1;
      sendJson(response, 200, pageOf(feed, { pageSize: 10, totalCount: requests === 1 ? 6 : 5, hasMore: false }));
    });
    const client = createClient({ baseUrl: server.baseUrl, apiKey: MOCK_API_KEY, clock: createSimulatedClock({ start: Date.now() }) });
    const written: LoadRow[] = [];
    await syncLoads({ client, pageSize: 10, upsert: (rows) => void written.push(...rows) });
    expect(written).toHaveLength(5);
    expect(requests).toBe(2);
  });
});
