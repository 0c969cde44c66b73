// syncLoads: keeps a copy of the customer's loads in step with the API, one page at a time, saving the
// cursor only after each page's upsert has resolved. The default strategy walks by key, not by page
// number, so an update during the sweep cannot make it skip a row (see README "Why no row is lost"); on a
// feed that says it is settled it reads on by page number between checks that nothing moved (stretch.ts).
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING, RATE_WINDOW_MS } from '@loadfeed/spec';
import type { ListLoadsParams, LoadfeedClient, LoadRow, Page } from './client.js';
import type { Clock } from './clock.js';
import type { Destination } from './destination.js';
import { BadRequestError } from './errors.js';
import type { WaitEvent } from './transport.js';
import { memoryCursorStore, type CursorStore } from './memory-cursor-store.js';
import { NoProgressError } from './errors.js';
import { checkOptions, must, type Schema } from './options.js';
import { checkedPage, describeRequest, orderFaultAcrossPages, PageContractError } from './page-contract.js';
import { settledThroughOf } from './settled-through.js';
import { mayStretchAfter, readStretch, stateAfter } from './stretch.js';
import { stretchPlan } from './stretch-plan.js';
import type { RemovalCopy } from './removals/copy.js';
import { removalsAfterSync } from './removals/after-sync.js';

/** The filters a sync may narrow to; paging and updatedSince belong to the sync. */
export type SyncFilters = Omit<ListLoadsParams, 'page' | 'pageSize' | 'updatedSince'>;

export interface SyncProgress {
  /** Responses handled so far. */
  pages: number;
  /** Rows handed to `upsert` so far. */
  rows: number;
  /** Rows this sweep covers: those handed over plus those the last response says are still ahead. */
  totalCount: number;
  /** HTTP requests sent, retries included. */
  requests: number;
  quotaRemaining: number | undefined;
  /** Epoch ms (our clock) the next request may go out. */
  nextRequestAt: number;
  /** Epoch ms (our clock) the sweep should end, from the rows ahead and the rate limit; undefined until known. */
  eta: number | undefined;
}

export interface SyncSummary {
  pages: number;
  rows: number;
  requests: number;
  /** Milliseconds spent waiting for the rate limit (pacing: the key's requests for the window were spent). */
  quotaWaitMs: number;
  /** Milliseconds spent waiting before retries (backoff after a failure, Retry-After after a 429). */
  retryWaitMs: number;
  /** The cursor saved last: the largest updatedAt whose page is upserted. */
  cursor: string | undefined;
  /** The page size the deployment served (the envelope's echo), once a page came back. */
  pageSize: number | undefined;
  /** Loads of the copy the feed no longer serves, marked removed (or deleted) by this run (README "Removals"). */
  removed: number;
  /** Loads found absent that this run could not yet make sure of; a later run judges them again. */
  removalsPending: number;
}

/** The deployment refused the page size the sync asked for by default with a 400; the sync asks for `fallback` instead. */
export interface PageSizeRefusal {
  requested: number;
  fallback: number;
  error: BadRequestError;
}

export type SyncStrategy = 'keys' | 'pages';

export interface SyncOptions {
  client: LoadfeedClient;
  /** Called with each page's new rows; the cursor moves only after it resolves. Upsert by loadNumber. */
  upsert?(rows: LoadRow[]): Promise<void> | void;
  cursorStore?: CursorStore;
  /**
   * Instead of `upsert` and `cursorStore`: where each page's rows and the cursor after them are written
   * in one transaction (`openPostgresDestination` and friends from `@loadfeed/sdk/destinations`).
   */
  destination?: Destination;
  /** Rows per request. Default: the contract's maximum (1000), which a deployment clamps to its own and echoes. */
  pageSize?: number;
  /** Called when the deployment refuses the default page size with a 400 and the sync falls back to SPEC's default (100). */
  onPageSizeRefused?(refusal: PageSizeRefusal): void;
  /** How far before the saved cursor a run starts reading again (default 5 minutes, as SPEC §4 suggests). */
  overlapMs?: number;
  filters?: SyncFilters;
  signal?: AbortSignal;
  onProgress?(progress: SyncProgress): void;
  /** Called before each wait, with how long and why: the rate limit (`quota`) or a retry; so that a long wait is never silent. */
  onWait?(event: WaitEvent): void;
  clock?: Clock;
  /** 'keys' (default) walks by updatedAt and loses no row under skew; 'pages' is SPEC §4's literal loop. */
  strategy?: SyncStrategy;
  /**
   * Ignore the saved cursor and sweep everything, then query again from the sweep's start on the
   * server's clock (SPEC §4's airtight one-time backfill).
   */
  backfill?: boolean;
  /**
   * With `upsert`: the caller's copy as removal detection counts it (a destination brings its own). After
   * the walk, loads it holds that the feed no longer serves are marked removed through it.
   */
  removals?: RemovalCopy;
  /** Delete loads that left the feed instead of marking them removed (default false). */
  deleteRemoved?: boolean;
}

/** What each option of syncLoads must be; undefined means the default. */
const SYNC_OPTIONS: Schema = {
  client: must.methods('listLoads', 'quota', 'stats'),
  upsert: must.function,
  cursorStore: must.methods('load', 'save'),
  destination: must.methods('loadCursor', 'write'),
  pageSize: must.integer(1),
  onPageSizeRefused: must.function,
  overlapMs: must.milliseconds(0),
  filters: must.object,
  signal: must.abortSignal,
  onProgress: must.function,
  onWait: must.function,
  clock: must.methods('now', 'sleep'),
  strategy: must.oneOf('keys', 'pages'),
  backfill: must.boolean,
  removals: must.methods('countLoads', 'listLoads', 'latestPickup', 'markRemoved'),
  deleteRemoved: must.boolean,
};

/** Paging and updatedSince belong to the sync: a filter cannot set them. */
const FILTER_OPTIONS: Schema = {
  status: must.array,
  pickupFrom: must.string,
  pickupTo: must.string,
  deliveryFrom: must.string,
  deliveryTo: must.string,
  poNumber: must.string,
  billingRefNumber: must.string,
} satisfies Record<keyof SyncFilters, unknown>;

const DEFAULT_OVERLAP_MS = 5 * 60_000;
/** The largest page number a walk asks for: past it a server's int32 wraps, and `>> 1` turns negative. */
const MAX_PAGE_NUMBER = 2 ** 31 - 1;

/**
 * Stops a walk that the server's answers would keep going forever: the same rows again while `hasMore`
 * says more follow. An honest server cannot do that in the walks that use it (each request starts past the
 * last one's rows), so it is an error, not a reason to loop.
 */
function repeatGuard() {
  let previous: string | undefined;
  return (page: Page, request: string): void => {
    const rows = page.data;
    const first = rows[0];
    const last = rows[rows.length - 1];
    const signature = first && last ? `${rows.length} ${first.loadNumber}@${first.updatedAt} ${last.loadNumber}@${last.updatedAt}` : undefined;
    if (page.hasMore && signature !== undefined && signature === previous) {
      throw new NoProgressError(
        `the sync makes no progress: ${request} brought the same ${rows.length} rows as the request before it (${first!.loadNumber} to ${last!.loadNumber}) and says more follow`,
      );
    }
    previous = signature;
  };
}

// Every updatedAt has SPEC's one shape (the client checks it), so equal instants are equal strings and
// later instants are greater strings; the cursor from a store may not, so it is compared as a time.
const toMs = (dateTime: string) => Date.parse(dateTime);
const toDateTime = (ms: number) => new Date(ms).toISOString();

/** Where a run hands its rows and its cursor: the caller's upsert and cursor store, or one destination. */
interface Sink {
  loadCursor(): Promise<string | undefined> | string | undefined;
  /** Rows, then (only after them, and in the same transaction where the destination has one) the cursor. */
  write(rows: LoadRow[], cursor: string | undefined): Promise<void>;
}

function sinkOf(options: SyncOptions): Sink {
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
function createRun(options: SyncOptions, sink: Sink) {
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

type Run = ReturnType<typeof createRun>;

/**
 * The key walk. Each request is page 1 from the last row's updatedAt, so an earlier row that moves away
 * shifts nothing this walk still has to read. Rows at that boundary already handed over are dropped;
 * that set holds at most one page, so memory stays flat. Where the deployment says how far its feed is
 * settled, the walk goes on from page 1 by page number instead, checked (stretch.ts), and comes back to
 * keys where a check fails: so the rows of one instant are not read again at every page.
 */
async function walkByKey(run: Run, from: string | undefined): Promise<void> {
  let guard = repeatGuard();
  const plan = stretchPlan();
  let since = from;
  let seenAtSince = new Set<string>();
  // The page after a tied group, read before the group was walked (see walkTiedGroup).
  let readAhead: Page | undefined;
  for (;;) {
    const page = readAhead ?? (await run.fetch(since, 1));
    readAhead = undefined;
    guard(page, `page 1 from updatedSince=${since ?? '(none)'}`);
    const rows = page.data;
    if (rows.length === 0) {
      run.setAhead(0);
      await run.deliver([], undefined);
      return;
    }
    const fresh = seenAtSince.size === 0 ? rows : rows.filter((row) => !(row.updatedAt === since && seenAtSince.has(row.loadNumber)));
    const last = rows[rows.length - 1]!.updatedAt;
    run.setAhead(page.totalCount - rows.length);
    await run.deliver(fresh, last);
    if (!page.hasMore) return;
    if (mayStretchAfter(page, plan, MAX_PAGE_NUMBER)) {
      const start = stateAfter(rows);
      // Its own guard: where the whole page is one instant, the stretch's page 1 is this page again.
      const end = await readStretch(run, plan, repeatGuard(), start, page.totalCount - rows.length + start.seen.size, page.pageSize);
      if (end.done) return;
      // The walk goes back to the last page that passed, so its next page may well bring rows it just had.
      ({ since, seen: seenAtSince } = end);
      guard = repeatGuard();
      continue;
    }
    plan.keyPageWalked();
    if (rows[0]!.updatedAt === last) {
      // A whole page at one updatedAt and more behind it: one write stamped more rows than a page holds.
      const after = await walkTiedGroup(run, last, page, new Set(rows.map((row) => row.loadNumber)));
      since = toDateTime(toMs(last) + 1);
      seenAtSince = new Set();
      // That page is still a true start from `since`: rows that changed since it was read (those that
      // left the group included) now sit after its last row, where the walk reads them fresh. Only a
      // page that says nothing follows is not trusted, because rows may have moved behind it.
      if (after.hasMore) readAhead = after;
    } else {
      ({ since, seen: seenAtSince } = stateAfter(rows));
    }
  }
}

/**
 * Reads every row that stays at updatedAt = `at` while the walk reads the group, without remembering
 * the group. Inside a group only page numbers reach further, and rows only ever LEAVE a past group (an
 * update moves a row to a later updatedAt; nothing is stamped in the past), which shifts the rows behind
 * it to lower positions. So the group is read from its last page DOWN to page 1: a row that shifts moves
 * into a page still to be read, never into one already read. Rows that leave are read later by the walk,
 * at their new updatedAt. The last page is found from the counts (rows at >= `at` minus rows at > `at`)
 * and confirmed by reading it: it must show the group's end, else the walk climbs until one does.
 * The count of rows after the group comes with the first page of them, which the key walk goes on from.
 */
async function walkTiedGroup(run: Run, at: string, firstPage: Page, handedOver: Set<string>): Promise<Page> {
  const size = firstPage.pageSize;
  const after = await run.fetch(toDateTime(toMs(at) + 1), 1);
  const groupEstimate = firstPage.totalCount - after.totalCount;
  // The page holding the first row AFTER the group shows where the group ends, so that page is the top.
  let top = Math.max(2, Math.floor(groupEstimate / size) + 1);
  const inGroup = (rows: LoadRow[]) => rows.filter((row) => row.updatedAt === at);
  // For the progress report: the group's rows not yet handed over, then every row after the group.
  let groupLeft = groupEstimate - handedOver.size;
  const showsEnd = (page: Page) => !page.hasMore || page.data.length < size || page.data[page.data.length - 1]!.updatedAt !== at;

  if (top > MAX_PAGE_NUMBER) {
    throw new NoProgressError(
      `the sync makes no progress: the server counts ${groupEstimate} rows at updatedAt ${at}, more than page numbers up to 2^31 reach at ${size} a page`,
    );
  }
  let page = await run.fetch(at, top, size);
  while (!showsEnd(page)) {
    // The group cannot grow (rows only leave it), so a full page of it past the rows first counted at or
    // after `at` is a server whose pages never end: the walk would climb for ever.
    const next = top + Math.max(1, Math.floor(top / 2));
    if (top * size > firstPage.totalCount || next > MAX_PAGE_NUMBER) {
      throw new NoProgressError(
        `the sync makes no progress: the rows at updatedAt ${at} never end: page ${top} (${size} a page) is still full of them and says more follow, past the ${firstPage.totalCount} rows the server counted from that instant`,
      );
    }
    top = next;
    page = await run.fetch(at, top, size);
  }
  let previous = handedOver;
  for (let number = top; ; number -= 1) {
    if (number < top) page = await run.fetch(at, number, size);
    const rows = inGroup(page.data);
    // A row read on the page above (or on the first page) is unchanged while it is still at `at`.
    const fresh = rows.filter((row) => !previous.has(row.loadNumber) && !handedOver.has(row.loadNumber));
    groupLeft -= fresh.length;
    run.setAhead(groupLeft + after.totalCount);
    await run.deliver(fresh, undefined);
    if (number === 1) return after;
    previous = new Set(rows.map((row) => row.loadNumber));
  }
}

/** SPEC §4's loop as written: page numbers from one updatedSince, following hasMore. */
async function walkByPage(run: Run, from: string | undefined): Promise<void> {
  const guard = repeatGuard();
  let largest: string | undefined;
  for (let number = 1; ; number += 1) {
    const page = await run.fetch(from, number);
    guard(page, `page ${number}`);
    if (page.hasMore && (number * page.pageSize >= page.totalCount || number >= MAX_PAGE_NUMBER)) {
      throw new NoProgressError(
        `the sync makes no progress: page ${number} (${page.pageSize} a page) says more follow, but the server counts only ${page.totalCount} rows`,
      );
    }
    for (const row of page.data) if (largest === undefined || row.updatedAt > largest) largest = row.updatedAt;
    run.setAhead(page.totalCount - (number - 1) * page.pageSize - page.data.length);
    await run.deliver(page.data, largest);
    if (!page.hasMore) return;
  }
}

/** Once the copy has caught up: what left the feed is marked removed (removals/after-sync.ts). */
function removalsAfter(run: Run, walk: (run: Run, from: string | undefined) => Promise<void>, options: SyncOptions, overlapMs: number): Promise<SyncSummary> {
  return removalsAfterSync(options, run.clock, run.summary, async () => {
    const tracked = run.track();
    const cursor = run.summary().cursor;
    await walk(run, cursor === undefined ? undefined : toDateTime(toMs(cursor) - overlapMs));
    return { delivered: tracked.delivered, settledThrough: tracked.settledThrough() };
  });
}

const STRATEGIES: Record<SyncStrategy, (run: Run, from: string | undefined) => Promise<void>> = {
  keys: walkByKey,
  pages: walkByPage,
};

/** Syncs the loads changed since the saved cursor (minus the overlap) into `upsert` or `destination`. */
export async function syncLoads(options: SyncOptions): Promise<SyncSummary> {
  checkOptions('syncLoads', options, SYNC_OPTIONS, ['client'], { filters: FILTER_OPTIONS });
  if (options.destination === undefined && options.upsert === undefined) {
    throw new TypeError('syncLoads: option upsert is required (or option destination instead)');
  }
  if (options.destination !== undefined && options.upsert !== undefined) {
    throw new TypeError('syncLoads: give option upsert or option destination, not both');
  }
  if (options.destination !== undefined && options.cursorStore !== undefined) {
    throw new TypeError('syncLoads: a destination keeps its own cursor: give cursorStore only with upsert');
  }
  const sink = sinkOf(options);
  const walk = STRATEGIES[options.strategy ?? 'keys'];
  const run = createRun(options, sink);
  const overlapMs = options.overlapMs ?? DEFAULT_OVERLAP_MS;

  if (options.backfill) {
    // The re-query starts where the server's clock stood when the sweep began, read no later than that.
    const sweepStartedAt = run.clock.now();
    await walk(run, undefined);
    await walk(run, toDateTime(sweepStartedAt + options.client.quota().serverClockOffsetMs));
    return removalsAfter(run, walk, options, overlapMs);
  }

  const saved = await sink.loadCursor();
  run.startCursor(saved);
  await walk(run, saved === undefined ? undefined : toDateTime(toMs(saved) - overlapMs));
  // A destination's first run starts from an empty copy: it holds what it just read, so the next run compares.
  return saved === undefined && options.destination ? run.summary() : removalsAfter(run, walk, options, overlapMs);
}
