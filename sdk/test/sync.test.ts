import { describe, expect, it } from 'vitest';
import { AbortError, memoryCursorStore, syncLoads, type LoadRow, type SyncProgress, type SyncStrategy } from '../src/index.js';
import { DEFAULT_RATE_LIMIT, PAGE_SIZE_CEILING, RATE_WINDOW_MS } from '@loadfeed/spec';
import { createCopy, loadInput, loadInputs, mockSetup } from './helpers.js';

const HOUR_MS = 3_600_000;

/**
 * 30 rows, pageSize 10. Just before the second request, the first row changes. Under SPEC's page loop the
 * rows behind it shift back one place, so row 11 slips onto page 1 (already read) and is never seen.
 */
async function skewScenario(strategy: SyncStrategy, layout: 'distinct' | 'one write') {
  const { mock, client, clock } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
  if (layout === 'one write') {
    mock.upsert(loadInputs(30));
  } else {
    // An hour apart, so that the 5-minute overlap of the next run cannot bring a missed row back.
    for (const input of loadInputs(30)) {
      mock.upsert([input]);
      await clock.advance(HOUR_MS);
    }
  }
  let requests = 0;
  mock.beforeRequest(async () => {
    requests += 1;
    if (requests === 2) {
      await clock.advance(HOUR_MS);
      mock.upsert([loadInput(1, { status: 'Cancelled' })]);
    }
  });
  const copy = createCopy();
  const cursorStore = memoryCursorStore();
  await syncLoads({ client, upsert: copy.upsert, pageSize: 10, strategy, cursorStore });
  await clock.advance(HOUR_MS);
  // The next scheduled run, with the overlap: SPEC says a missed row "appears in the next poll's delta".
  await syncLoads({ client, upsert: copy.upsert, pageSize: 10, strategy, cursorStore });
  return copy.differences(mock.loads());
}

describe('syncLoads', () => {
  it('copies every row of a dataset with distinct timestamps, and every response conforms', async () => {
    const { mock, client, violations } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    for (const input of loadInputs(250)) mock.upsert([input]);
    const copy = createCopy();
    const summary = await syncLoads({ client, upsert: copy.upsert });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(summary.rows).toBe(250);
    expect(violations).toEqual([]);
  });

  it('copies every row when all rows share one updatedAt, handing each over once', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1000, loads: loadInputs(450) } });
    const copy = createCopy();
    const summary = await syncLoads({ client, upsert: copy.upsert });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(summary.rows).toBe(450);
  });

  it.each(['distinct', 'one write'] as const)('with %s timestamps, a row changed mid-sweep makes the pages strategy lose a row for good', async (layout) => {
    expect(await skewScenario('pages', layout)).toEqual(['L000011 missing']);
  });

  it.each(['distinct', 'one write'] as const)('with %s timestamps, the same change costs the default key walk nothing', async (layout) => {
    expect(await skewScenario('keys', layout)).toEqual([]);
  });

  it('saves the cursor only after a page is upserted, never for a failed upsert, and a resume loses nothing', async () => {
    const { mock, client, clock } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    for (const input of loadInputs(30)) {
      mock.upsert([input]);
      await clock.advance(HOUR_MS);
    }
    const saves: { cursor: string; upserted: number }[] = [];
    const copy = createCopy();
    const store = memoryCursorStore();
    const cursorStore = { load: store.load, save: (cursor: string) => (saves.push({ cursor, upserted: copy.rows.size }), store.save(cursor)) };
    let calls = 0;
    const failing = async (rows: LoadRow[]) => {
      calls += 1;
      if (calls === 2) throw new Error('database down');
      copy.upsert(rows);
    };
    await expect(syncLoads({ client, upsert: failing, pageSize: 10, cursorStore })).rejects.toThrow('database down');
    expect(saves).toEqual([{ cursor: mock.loads()[9]!.updatedAt, upserted: 10 }]);
    const summary = await syncLoads({ client, upsert: copy.upsert, pageSize: 10, cursorStore, overlapMs: 0 });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(summary.cursor).toBe(mock.loads().at(-1)!.updatedAt);
  });

  it('an abort during a quota wait ends the sync promptly and keeps the last saved cursor', async () => {
    const { mock, client, clock } = mockSetup({ autoAdvance: false });
    mock.upsert(loadInputs(200));
    await clock.advance(1000);
    for (const input of loadInputs(200, 1000)) mock.upsert([input]);
    const controller = new AbortController();
    const cursorStore = memoryCursorStore();
    const copy = createCopy();
    const pending = syncLoads({ client, upsert: copy.upsert, pageSize: 10, cursorStore, signal: controller.signal });
    await clock.untilSleeping();
    const savedBefore = cursorStore.cursor;
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(clock.sleepers).toBe(0);
    expect(savedBefore).toBeDefined();
    expect(cursorStore.cursor).toBe(savedBefore);
    expect(mock.stats.requests).toBe(10);
  });

  it('reports progress with pages, rows, totalCount, requests, quota and an eta; returns a summary', async () => {
    const { mock, client, clock } = mockSetup();
    for (const input of loadInputs(95)) mock.upsert([input]);
    const start = clock.now();
    const reports: SyncProgress[] = [];
    const summary = await syncLoads({ client, upsert: () => {}, pageSize: 5, onProgress: (progress) => reports.push(progress) });
    const first = reports[0]!;
    expect(first).toMatchObject({ pages: 1, rows: 5, totalCount: 95, requests: 1, quotaRemaining: DEFAULT_RATE_LIMIT - 1 });
    // The eta counts 4 new rows a request, as the key walk brings (it re-reads its anchor): 24 requests at
    // the default limit, so the last would go out two windows in.
    const twoWindows = Math.floor(23 / DEFAULT_RATE_LIMIT) * RATE_WINDOW_MS;
    expect(first.eta).toBe(start + twoWindows);
    expect(reports.at(-1)).toMatchObject({ rows: 95, totalCount: 95 });
    // The mock says how far its feed is settled, so once page numbers take fewer requests than keys the
    // walk goes on by number, with a check first and every 5 pages: 23 requests, the last two windows in.
    expect(summary).toEqual({ pages: 23, rows: 95, requests: 23, quotaWaitMs: twoWindows, retryWaitMs: 0, cursor: mock.loads().at(-1)!.updatedAt, pageSize: 5, removed: 0, removalsPending: 0, recovered: 0 });
  });

  it('says before each wait how long and why, and the summary says how long it waited for the rate limit and for retries', async () => {
    let failOnce = true;
    const { mock, client, clock } = mockSetup({
      client: {
        fetch: (request) => {
          if (!failOnce) return mock.fetch(request);
          failOnce = false;
          return Promise.resolve(new Response('{"error":"down"}', { status: 503, headers: { 'Content-Type': 'application/json' } }));
        },
      },
    });
    for (const input of loadInputs(100)) mock.upsert([input]);
    const told: { kind: string; reason: string; delayMs: number; toldAt: number; until: number }[] = [];
    const summary = await syncLoads({
      client,
      upsert: () => {},
      pageSize: 5,
      onWait: ({ kind, reason, delayMs, until }) => void told.push({ kind, reason, delayMs, until, toldAt: clock.now() }),
    });
    expect(summary.rows).toBe(100);
    expect(told.map(({ kind, reason }) => `${kind}: ${reason}`)).toEqual([
      'retry: status 503',
      `quota: the key's ${DEFAULT_RATE_LIMIT} requests a minute are spent`,
      `quota: the key's ${DEFAULT_RATE_LIMIT} requests a minute are spent`,
    ]);
    // Told at the start of each wait, not after it.
    for (const wait of told) expect(wait.until - wait.toldAt).toBe(wait.delayMs);
    expect(summary.retryWaitMs).toBe(told[0]!.delayMs);
    expect(summary.quotaWaitMs).toBe(told[1]!.delayMs + told[2]!.delayMs);
    // Two waits for the window, each most of one.
    expect(summary.quotaWaitMs).toBeGreaterThan(2 * RATE_WINDOW_MS - 20_000);
  });

  it('reports the same totalCount all through a sweep of an unchanging dataset, tied groups included', async () => {
    const { mock, client, clock } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    const inputs = loadInputs(330);
    const distinctly = async (batch: typeof inputs) => {
      for (const input of batch) {
        mock.upsert([input]);
        await clock.advance(1);
      }
    };
    // 40 rows apart, 250 stamped by one write, 40 apart again.
    await distinctly(inputs.slice(0, 40));
    mock.upsert(inputs.slice(40, 290));
    await clock.advance(1);
    await distinctly(inputs.slice(290));
    const reports: SyncProgress[] = [];
    const summary = await syncLoads({ client, upsert: () => {}, onProgress: (progress) => reports.push(progress) });
    expect(summary.rows).toBe(330);
    expect(new Set(reports.map((report) => report.totalCount))).toEqual(new Set([330]));
    expect(reports.every((report, index) => index === 0 || report.rows >= reports[index - 1]!.rows)).toBe(true);
  });

  it('starts the next run at the saved cursor minus the overlap', async () => {
    const { mock, client, clock } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    const urls: string[] = [];
    mock.beforeRequest((request) => void urls.push(request.url));
    mock.upsert(loadInputs(3));
    const cursorStore = memoryCursorStore();
    await syncLoads({ client, upsert: () => {}, cursorStore });
    await clock.advance(HOUR_MS);
    urls.length = 0;
    await syncLoads({ client, upsert: () => {}, cursorStore, overlapMs: 60_000 });
    const since = new URL(urls[0]!).searchParams.get('updatedSince');
    expect(Date.parse(since!)).toBe(Date.parse(cursorStore.cursor!) - 60_000);
  });

  it('passes filters to every request', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1000 } });
    for (const input of loadInputs(60)) mock.upsert([input]);
    const copy = createCopy();
    await syncLoads({ client, upsert: copy.upsert, pageSize: 3, filters: { status: ['Delivered', 'Covered'] } });
    const expected = mock.loads().filter((load) => load.status === 'Delivered' || load.status === 'Covered');
    expect(copy.differences(expected)).toEqual([]);
  });

  it("backfill sweeps everything, then queries again from the sweep's start on the server's clock", async () => {
    const { mock, client, clock } = mockSetup({ mock: { rateLimitPerMinute: 1000, serverClockOffsetMs: 7_000 } });
    for (const input of loadInputs(20)) mock.upsert([input]);
    const urls: string[] = [];
    mock.beforeRequest((request) => void urls.push(request.url));
    const start = clock.now();
    const copy = createCopy();
    await syncLoads({ client, upsert: copy.upsert, pageSize: 50, backfill: true, cursorStore: memoryCursorStore('2030-01-01T00:00:00.000Z') });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(urls.map((url) => new URL(url).searchParams.get('updatedSince'))).toEqual([null, new Date(start + 7_000).toISOString()]);
  });

  it('an option given as undefined means its default', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1000, loads: loadInputs(120) } });
    const urls: string[] = [];
    mock.beforeRequest((request) => void urls.push(request.url));
    const copy = createCopy();
    await syncLoads({ client, upsert: copy.upsert, pageSize: undefined, overlapMs: undefined, strategy: undefined, filters: undefined, cursorStore: undefined });
    expect(copy.differences(mock.loads())).toEqual([]);
    expect(new URL(urls[0]!).searchParams.get('pageSize')).toBe(String(PAGE_SIZE_CEILING));
  });

  it.each([
    [{ pageSize: 0 }, /option pageSize must be a whole number >= 1 \(got 0\)/],
    [{ pageSize: 2.5 }, /option pageSize must be a whole number/],
    [{ overlapMs: -60_000 }, /option overlapMs must be a finite number of milliseconds >= 0/],
    [{ overlapMs: Number.NaN }, /option overlapMs/],
    [{ strategy: 'page' }, /option strategy must be one of "keys", "pages" \(got "page"\)/],
    [{ backfill: 'yes' }, /option backfill must be a boolean/],
    [{ cursorStore: { load: () => undefined } }, /option cursorStore must be an object with load\(\) and save\(\)/],
    [{ onProgress: {} }, /option onProgress must be a function/],
    [{ filters: { updatedSince: '2026-01-01' } }, /unknown option filters\.updatedSince/],
    [{ filters: { status: 'Delivered' } }, /option filters\.status must be an array/],
    [{ upsert: undefined }, /option upsert is required/],
    [{ pagesize: 10 }, /unknown option pagesize/],
  ])('a wrong option fails at once with a TypeError that names it: %j', async (wrong, message) => {
    const { mock, client } = mockSetup();
    const sync = syncLoads({ client, upsert: () => {}, ...(wrong as object) });
    await expect(sync).rejects.toThrow(TypeError);
    await expect(sync).rejects.toThrow(message);
    expect(mock.stats.requests).toBe(0);
  });
});
