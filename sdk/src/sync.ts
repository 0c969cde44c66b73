// syncLoads: keeps a copy of the customer's loads in step with the API, one page at a time, saving the
// cursor only after each page's upsert has resolved. The default strategy walks by key, not by page
// number, so an update during the sweep cannot make it skip a row (see README "Why no row is lost"); on a
// feed that says it is settled it reads on by page number between checks that nothing moved (stretch.ts).
// This file holds the options and picks the walk (walk-by-key.ts, walk-by-page.ts); sync-run.ts holds
// what a run shares between them.
import { LIST_LOADS_FILTERS } from '@loadfeed/spec';
import type { ListLoadsParams, LoadfeedClient, LoadRow } from './client.js';
import type { Clock } from './clock.js';
import type { Destination } from './destination.js';
import type { BadRequestError } from './errors.js';
import type { WaitEvent } from './transport.js';
import type { CursorStore } from './memory-cursor-store.js';
import { checkOptions, must, type Schema } from './options.js';
import type { RemovalCopy } from './removals/copy.js';
import { removalsAfterSync } from './removals/after-sync.js';
import { createRun, sinkOf, toDateTime, toMs, type Run } from './sync-run.js';
import { walkByKey } from './walk-by-key.js';
import { walkByPage } from './walk-by-page.js';

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
  /**
   * Rows the walk did not bring, stamped before the cursor, that the comparison of counts found and wrote
   * (README "Removals"): the deployment served them behind pages already read.
   */
  recovered: number;
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

/** The filter a sync sets itself (its cursor); paging too. */
const SYNC_OWN_FILTER: Exclude<keyof ListLoadsParams, keyof SyncFilters | 'page' | 'pageSize'> = 'updatedSince';

/** Every other filter the contract declares (LIST_LOADS_FILTERS), as the option `filters` may give it. */
const FILTER_OPTIONS: Schema = Object.fromEntries(
  LIST_LOADS_FILTERS.filter(({ name }) => name !== SYNC_OWN_FILTER).map(({ name, kind }) => [name, kind === 'set' ? must.array : must.string]),
);

const DEFAULT_OVERLAP_MS = 5 * 60_000;


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
  return removalsAfter(run, walk, options, overlapMs);
}
