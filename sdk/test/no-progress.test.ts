// A sync against a server whose answers never let it finish stops with a NoProgressError (or, where the
// answer breaks the contract, a ContractError) instead of requesting for ever.
import { describe, expect, it } from 'vitest';
import { ContractError, NoProgressError, createClient, syncLoads, type SyncStrategy } from '../src/index.js';
import { MOCK_API_KEY, createSimulatedClock } from '../src/mock/index.js';
import { contractRow, pageOf, queryOf, sendJson, startHostileServer } from './hostile-server.js';

async function syncAgainst(baseUrl: string, strategy: SyncStrategy = 'keys') {
  let upserts = 0;
  // Simulated time: the sync never waits for real, whatever it is paced by.
  const client = createClient({ baseUrl, apiKey: MOCK_API_KEY, clock: createSimulatedClock({ start: Date.now() }) });
  const error = await syncLoads({ client, strategy, upsert: (rows) => void (upserts += rows.length) }).catch((caught: unknown) => caught);
  return { error, upserts };
}

describe('a sync that makes no progress stops', () => {
  it('the same page again and again with hasMore (pages strategy, page echoed) stops at the second', async () => {
    const rows = [contractRow(1), contractRow(2)];
    const server = await startHostileServer((request, response) => {
      const page = Number(queryOf(request.url!).get('page'));
      sendJson(response, 200, pageOf(rows, { page, pageSize: 2, totalCount: 1_000_000, hasMore: true }));
    });
    const { error, upserts } = await syncAgainst(server.baseUrl, 'pages');
    expect(error).toBeInstanceOf(NoProgressError);
    expect((error as Error).message).toBe('the sync makes no progress: page 2 brought the same 2 rows as the request before it (L000001 to L000002) and says more follow');
    expect(server.requests).toHaveLength(2);
    expect(upserts).toBe(2);
  });

  it('a page that says more follow past the rows its totalCount counts is refused, after asking once more', async () => {
    const server = await startHostileServer((request, response) => {
      const page = Number(queryOf(request.url!).get('page'));
      sendJson(response, 200, pageOf([contractRow(page)], { page, pageSize: 1, totalCount: 3, hasMore: true }));
    });
    const { error, upserts } = await syncAgainst(server.baseUrl, 'pages');
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations).toEqual([{ path: '/hasMore', message: 'is true, but totalCount 3 ends on or before this page (page 3 of 1 a page)' }]);
    expect(server.requests).toHaveLength(4);
    expect(upserts).toBe(2);
  });

  it('the same page again whatever the query (keys strategy) is refused at the second request', async () => {
    const server = await startHostileServer((_request, response) => sendJson(response, 200, pageOf([contractRow(1), contractRow(2)], { pageSize: 2, totalCount: 1_000_000, hasMore: true })));
    const { error } = await syncAgainst(server.baseUrl);
    expect(error).toBeInstanceOf(ContractError);
    expect(server.requests).toHaveLength(2);
  });

  it('a page number not echoed is refused: the walk relies on the page it asked for', async () => {
    const server = await startHostileServer((_request, response) => sendJson(response, 200, pageOf([contractRow(1)], { page: 1, pageSize: 1, totalCount: 10, hasMore: true })));
    const { error } = await syncAgainst(server.baseUrl, 'pages');
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations).toEqual([{ path: '/page', message: 'must echo the page asked for (2), got 1' }]);
  });

  it('a tied group that never ends (every row at one updatedAt, a huge totalCount) stops instead of climbing past 2^31', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const size = 100;
    const pages: number[] = [];
    const server = await startHostileServer((request, response) => {
      const query = queryOf(request.url!);
      const page = Number(query.get('page'));
      pages.push(page);
      if (query.get('updatedSince') === '2026-01-01T00:00:00.001Z') return sendJson(response, 200, pageOf([], { page, pageSize: size, totalCount: 0 }));
      // Full pages of distinct rows, all at `at`, for any page number: a group with no end.
      const rows = Array.from({ length: size }, (_, index) => contractRow((page - 1) * size + index, { updatedAt: at }));
      sendJson(response, 200, pageOf(rows, { page, pageSize: size, totalCount: 50_000, hasMore: true }));
    });
    const { error } = await syncAgainst(server.baseUrl);
    // Page 501 of 100 a page says more follow past the 50,000 rows counted: the page itself is refused.
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).violations).toEqual([{ path: '/hasMore', message: 'is true, but totalCount 50000 ends on or before this page (page 501 of 100 a page)' }]);
    expect(Math.max(...pages)).toBe(501);
    expect(pages.length).toBeLessThan(10);
  });

  it('the same with a totalCount near 2^53: the page number never passes 2^31', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const pages: number[] = [];
    const server = await startHostileServer((request, response) => {
      const query = queryOf(request.url!);
      const page = Number(query.get('page'));
      pages.push(page);
      if (query.get('updatedSince') === '2026-01-01T00:00:00.001Z') return sendJson(response, 200, pageOf([], { page, pageSize: 100, totalCount: 0 }));
      const rows = Array.from({ length: 100 }, (_, index) => contractRow(index, { loadNumber: `P${page}-${index}`, updatedAt: at }));
      sendJson(response, 200, pageOf(rows, { page, pageSize: 100, totalCount: Number.MAX_SAFE_INTEGER, hasMore: true }));
    });
    const { error } = await syncAgainst(server.baseUrl);
    expect(error).toBeInstanceOf(NoProgressError);
    expect(Math.max(...pages)).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(pages.every((page) => page >= 1)).toBe(true);
  });
});
