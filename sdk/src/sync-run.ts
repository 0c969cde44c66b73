// What one sync run shares between its walks: the requests (each page checked, the page size falling back
// once where a deployment refuses the default), the hand-over of rows and cursor, the progress report and
// the summary.
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING, RATE_WINDOW_MS } from '@loadfeed/spec';
import type { ListLoadsParams, LoadRow, Page } from './client.js';
import { BadRequestError } from './errors.js';
import { memoryCursorStore } from './memory-cursor-store.js';
import { checkedPage, describeRequest, orderFaultAcrossPages, PageContractError } from './page-contract.js';
import { settledThroughOf } from './settled-through.js';
import type { SyncOptions, SyncSummary } from './sync.js';

// Every updatedAt has SPEC's one shape (the client checks it), so equal instants are equal strings and
// later instants are greater strings; the cursor from a store may not, so it is compared as a time.
export const toMs = (dateTime: string) => Date.parse(dateTime);
export const toDateTime = (ms: number) => new Date(ms).toISOString();

/** Where a run hands its rows and its cursor: the caller's upsert and cursor store, or one destination. */
export interface Sink {
  loadCursor(): Promise<string | undefined> | string | undefined;
  /** Rows, then (only after them, and in the same transaction where the destination has one) the cursor. */
  write(rows: LoadRow[], cursor: string | undefined): Promise<void>;
}

export function sinkOf(options: SyncOptions): Sink {
  const { destination, upsert } = options;
  if (destination) return { loadCursor: () => destination.loadCursor(), write: async (rows, cursor) => destination.write(rows, cursor) };
  const cursorStore = options.cursorStore ?? memoryCursorStore();
  return {
    loadCursor: () => cursorStore.load(),
    async write(rows, cursor) {
      if (rows.length > 0) await upsert!(rows);
      if (cursor !== undefined) await cursorStore.save(cursor);
    },
  };
}

/** What one sync run shares between its strategies: the requests, the hand-over and the bookkeeping. */
export function createRun(options: SyncOptions, sink: Sink) {
  const { client, signal } = options;
  const clock = options.clock ?? client.clock;
  // Unless the caller chose, ask for the contract's largest page: a deployment that serves fewer clamps
  // and echoes its own maximum (SPEC §4), so asking costs nothing, and the fewest requests follow.
  let pageSize = options.pageSize ?? PAGE_SIZE_CEILING;
  let served: number | undefined;
  let mayFallBack = options.pageSize === undefined && pageSize > DEFAULT_PAGE_SIZE;
  // The key walk reads the last row of each page again (it anchors the next request), so a page brings one row less.
  const rowsPerRequest = () => (options.strategy === 'pages' || pageSize < 2 ? pageSize : pageSize - 1);
  const startStats = client.stats();
  let pages = 0;
  let rows = 0;
  let ahead: number | undefined;
  let cursor: string | undefined;
  // What removal detection's last catch-up served, and how far its responses said the feed was settled.
  let delivered: Set<string> | undefined;
  let settled: number | undefined;

  function progress(): void {
    if (!options.onProgress) return;
    const quota = client.quota();
    const stats = client.stats();
    let eta: number | undefined;
    if (ahead !== undefined && quota.limit !== undefined && quota.limit > 0) {
      const requestsAhead = Math.ceil(ahead / rowsPerRequest());
      const beyondQuota = Math.max(0, requestsAhead - Math.max(0, quota.remaining ?? quota.limit));
      eta = quota.nextRequestAt + Math.ceil(beyondQuota / quota.limit) * RATE_WINDOW_MS;
    }
    options.onProgress({
      pages,
      rows,
      totalCount: rows + (ahead ?? 0),
      requests: stats.requests - startStats.requests,
      quotaRemaining: quota.remaining,
      nextRequestAt: quota.nextRequestAt,
      eta,
    });
  }

  // Every page is held to what SPEC implies of it (page-contract.ts) before any of it is handed over.
  async function request(updatedSince: string | undefined, page: number, size: number): Promise<Page> {
    const params: ListLoadsParams = { ...options.filters, page, pageSize: size };
    if (updatedSince !== undefined) params.updatedSince = updatedSince;
    const call = { ...(signal ? { signal } : {}), ...(options.onWait ? { onWait: options.onWait } : {}) };
    return checkedPage(() => client.listLoads(params, call), { updatedSince, page });
  }

  // The page the run read last by `fetch`: the next one by number from the same anchor continues its order.
  let previous: { updatedSince: string | undefined; number: number; page: Page } | undefined;
  function checkOrderAfter(updatedSince: string | undefined, number: number, page: Page): void {
    const before = previous;
    previous = { updatedSince, number, page };
    if (before === undefined || before.updatedSince !== updatedSince || before.page.pageSize !== page.pageSize) return;
    if (settledThroughOf(before.page) === undefined || settledThroughOf(page) === undefined) return;
    const fault = orderFaultAcrossPages(before.page, before.number, page, number);
    if (fault) throw new PageContractError(describeRequest({ updatedSince, page: number }), [fault]);
  }

  return {
    clock,
    async fetch(updatedSince: string | undefined, page: number, size = pageSize): Promise<Page> {
      let result: Page;
      try {
        result = await request(updatedSince, page, size);
      } catch (error) {
        // A deployment off the contract may refuse a large page instead of clamping it: fall back to
        // SPEC's default once, and say so; a 400 for anything else comes back at the default size too.
        if (!(mayFallBack && error instanceof BadRequestError)) throw error;
        mayFallBack = false;
        options.onPageSizeRefused?.({ requested: size, fallback: DEFAULT_PAGE_SIZE, error });
        pageSize = DEFAULT_PAGE_SIZE;
        result = await request(updatedSince, page, pageSize);
      }
      mayFallBack = false;
      pages += 1;
      checkOrderAfter(updatedSince, page, result);
      settled = settledThroughOf(result) ?? settled;
      // Ask for what the deployment serves from now on: the key walk's tied groups count pages of that size.
      if (Number.isSafeInteger(result.pageSize) && result.pageSize >= 1 && result.pageSize <= size) {
        served = result.pageSize;
        pageSize = result.pageSize;
      }
      return result;
    },
    /** One request at a size of its own (a stretch's check), leaving the size the run asks for alone. */
    async probe(updatedSince: string | undefined, page: number, size: number): Promise<Page> {
      const result = await request(updatedSince, page, size);
      pages += 1;
      settled = settledThroughOf(result) ?? settled;
      return result;
    },
    /** Rows still ahead of the sweep after a page, for the progress report. */
    setAhead(count: number): void {
      ahead = Math.max(0, count);
    },
    /** Hands rows over, then (only then) saves the cursor if it moved forward. */
    async deliver(batch: LoadRow[], nextCursor: string | undefined): Promise<void> {
      const moved = nextCursor !== undefined && (cursor === undefined || toMs(nextCursor) > toMs(cursor)) ? nextCursor : undefined;
      if (batch.length > 0 || moved !== undefined) await sink.write(batch, moved);
      rows += batch.length;
      if (delivered) for (const row of batch) delivered.add(row.loadNumber);
      if (moved !== undefined) cursor = moved;
      progress();
    },
    startCursor(saved: string | undefined): void {
      cursor = saved;
    },
    /** From now on, notes the loadNumbers handed over and how far the feed is settled. */
    track(): { delivered: ReadonlySet<string>; settledThrough(): number | undefined } {
      delivered = new Set();
      settled = undefined;
      const seen = delivered;
      return { delivered: seen, settledThrough: () => settled };
    },
    summary(): SyncSummary {
      const stats = client.stats();
      return {
        pages,
        rows,
        requests: stats.requests - startStats.requests,
        quotaWaitMs: stats.quotaWaitMs - startStats.quotaWaitMs,
        retryWaitMs: stats.retryWaitMs - startStats.retryWaitMs,
        cursor,
        pageSize: served,
        removed: 0,
        removalsPending: 0,
      };
    },
  };
}

export type Run = ReturnType<typeof createRun>;
