// What one sync run shares between its walks: the requests (page-requester.ts), the hand-over of rows
// and cursor, the progress report and the summary.
import { RATE_WINDOW_MS } from '@loadfeed/spec';
import type { LoadRow } from './client.js';
import { memoryCursorStore } from './memory-cursor-store.js';
import { createPageRequester } from './page-requester.js';
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
  const { client } = options;
  const clock = options.clock ?? client.clock;
  const requester = createPageRequester(options);
  // The key walk reads the last row of each page again (it anchors the next request), so a page brings one row less.
  const rowsPerRequest = () => {
    const pageSize = requester.pageSize();
    return options.strategy === 'pages' || pageSize < 2 ? pageSize : pageSize - 1;
  };
  const startStats = client.stats();
  let rows = 0;
  let ahead: number | undefined;
  let cursor: string | undefined;
  // What removal detection's last catch-up served (how far it was settled, the requester notes).
  let delivered: Set<string> | undefined;

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
      pages: requester.pages(),
      rows,
      totalCount: rows + (ahead ?? 0),
      requests: stats.requests - startStats.requests,
      quotaRemaining: quota.remaining,
      nextRequestAt: quota.nextRequestAt,
      eta,
    });
  }

  return {
    clock,
    fetch: requester.fetch,
    probe: requester.probe,
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
      requester.resetSettled();
      const seen = delivered;
      return { delivered: seen, settledThrough: requester.settledThrough };
    },
    summary(): SyncSummary {
      const stats = client.stats();
      return {
        pages: requester.pages(),
        rows,
        requests: stats.requests - startStats.requests,
        quotaWaitMs: stats.quotaWaitMs - startStats.quotaWaitMs,
        retryWaitMs: stats.retryWaitMs - startStats.retryWaitMs,
        cursor,
        pageSize: requester.served(),
        removed: 0,
        removalsPending: 0,
        recovered: 0,
      };
    },
  };
}

export type Run = ReturnType<typeof createRun>;
