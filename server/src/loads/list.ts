// The listLoads query: one customer's loads inside the feed window, filtered, ordered by
// (updated_at, id), one page of them and the exact count of all. The page and its totalCount always
// come from one snapshot: either one statement counts and reads the page, or the page is read with a
// count kept from an earlier snapshot at the same feed version (count-cache.ts), which the page's own
// statement reads and the caller checks. The statements are list-statements.ts; choosePageStatement below
// picks the next one.
// - With the count known before the page is read, a page nearer the end than the start is read from
//   the end (the feed index scanned backward, skipping only the rows after the page) and put back in
//   ascending order: the deepest page skips nothing instead of the whole feed.
// - Where the page before ended is kept at the kept count's feed version (page-boundaries.ts), a page
//   10,000 rows or more in is read after that page's last load: pages read in order cost their own rows.
// - Only settled rows are read: those stamped at or before the customer's settled horizon
//   (sql/functions/feed_settled_through.sql), which the caller fixes in a statement of its own before any of
//   these statements takes its snapshot. The page, its count and hasMore all come from that set.
// Statements are unnamed, so PostgreSQL plans each with its values, folds the absent filters away and
// proves that the window cutoff implies the feed index's predicate; except a page of a query without
// filters but updatedSince, read by a function whose plan each connection keeps (PLANNED_PAGE_FROM_START_SQL),
// with the query's own statement behind it for a window the feed index does not cover.
import type pg from 'pg';
import { CountCache, type KeptCount } from './count-cache.js';
import { feedQueryValue } from './feed-query.js';
import type { LoadFilters } from './list-query.js';
import { COUNTERS_COUNT_SQL, countedByCounters } from './count-statements.js';
import { coversVersion, rememberPageEnd, type PageBoundaries } from './page-boundaries.js';
import { COUNT_SQL, PAGE_STATEMENTS, PLANNED_PAGE_FROM_END_SQL, PLANNED_PAGE_FROM_START_SQL, type FeedAccess } from './list-statements.js';

interface FeedState {
  feed_version: string;
  /** The latest stamp of the customer's loads; null when it has none. */
  latest_updated_at: Date | null;
}

interface PageRow extends FeedState {
  total_count: string | null;
  page_rows: number;
  /** The page's loads as a JSON array, in order. */
  data: string;
}

/** A planned page statement's row when its window starts before the feed index's cutoff: no page was read. */
interface NoPageRow extends FeedState {
  total_count: null;
  page_rows: null;
  data: null;
}

interface CountRow extends FeedState {
  total_count: string;
}

/** Whose feed, and which part of it every statement reads. */
export interface FeedScope {
  customerId: string;
  /** The 12-month window's start (feedWindowStart, @loadfeed/spec). */
  windowStart: Date;
  /** The settled horizon (ISO, milliseconds): only rows stamped at or before it are read. */
  settledThrough: string;
}

/** The statement to run next, and what it returns: the page with its count, the count alone, or the page alone. */
export interface PageStatement {
  kind: 'counted page' | 'count' | 'page';
  sql: string;
  values: unknown[];
  /**
   * For a planned page statement (PLANNED_PAGE_FROM_START_SQL), the query's own statement, read with the
   * same values when the planned one answers no page: its window starts before the feed index's cutoff.
   */
  unplanned?: string;
}

/**
 * The feed's parameters: $1, the feed's query as a feed_query value (feed-query.ts) in PostgreSQL's text
 * form of a row; COUNT_SQL takes it alone.
 */
export function feedParameters(scope: FeedScope, filters: LoadFilters): unknown[] {
  return [feedQueryValue(scope, filters)];
}

/**
 * What reads the page next. With the filters' exact count known (kept, or just counted): the page alone,
 * from the start, or from the end when fewer rows follow the page than precede it (either reads the same
 * rows, in the same order, provided its snapshot holds `knownCount` rows; a page past the end reads none).
 * Without it: page 1 is counted and read in one statement; a later page is counted first, so that it can
 * be read from the end (counting and skipping from the start would scan the feed twice) — unless a count
 * taken that way has already missed its page to a write, and then it is counted and read in one.
 */
export function choosePageStatement(
  scope: FeedScope,
  filters: LoadFilters,
  knownCount: number | undefined,
  countMissed = false,
  afterLoad?: string,
): PageStatement {
  const feed = feedParameters(scope, filters);
  const statements = PAGE_STATEMENTS[feedAccessOf(filters)];
  if (knownCount === undefined) {
    const byCounters = countedByCounters(filters);
    if (filters.page > 1 && !countMissed) return { kind: 'count', sql: byCounters ? COUNTERS_COUNT_SQL : COUNT_SQL, values: feed };
    const sql = byCounters ? statements.countedPageByCounters : statements.countedPage;
    return { kind: 'counted page', sql, values: [...feed, filters.page, filters.pageSize] };
  }
  const before = (filters.page - 1) * filters.pageSize;
  const rows = Math.max(0, Math.min(filters.pageSize, knownCount - before));
  const after = Math.max(0, knownCount - before - rows);
  // After the load that ended the page before, when known (page-boundaries.ts): it reads its own rows only.
  if (afterLoad !== undefined && rows > 0) {
    return { kind: 'page', sql: statements.afterLoad, values: [...feed, afterLoad, filters.pageSize] };
  }
  const fromStart = after >= before;
  const values = fromStart ? [...feed, filters.page, filters.pageSize] : [...feed, after, rows];
  const sql = fromStart ? statements.fromStart : statements.fromEnd;
  if (hasFilterButUpdatedSince(filters)) return { kind: 'page', sql, values };
  return { kind: 'page', sql: fromStart ? PLANNED_PAGE_FROM_START_SQL : PLANNED_PAGE_FROM_END_SQL, values, unplanned: sql };
}

/**
 * Which index finds the page (list-statements.ts, FeedAccess): an exact match's few rows are the
 * narrowest; then a date range's days, each day's loads in the feed's order (the pickup range's when both
 * are given); then each status's loads in the feed's order.
 */
export function feedAccessOf(filters: LoadFilters): FeedAccess {
  if (filters.poNumber !== undefined || filters.billingRefNumber !== undefined) return 'feed';
  if (filters.pickupFrom !== undefined || filters.pickupTo !== undefined) return 'pickup days';
  if (filters.deliveryFrom !== undefined || filters.deliveryTo !== undefined) return 'delivery days';
  return filters.statuses ? 'status' : 'feed';
}

/** What a planned page statement reads of a query (PLANNED_PAGE_FROM_START_SQL): any other filter is the query's own statement's. */
const PLANNED_PAGE_FIELDS: ReadonlySet<string> = new Set<keyof LoadFilters>(['page', 'pageSize', 'updatedSince']);

/**
 * Whether the query filters by more than updatedSince: then its page statement is planned with its values.
 * Read from the query's fields rather than a list of the filters, so that a filter added later is never
 * dropped by a planned statement that does not know it.
 */
function hasFilterButUpdatedSince(filters: LoadFilters): boolean {
  return Object.entries(filters).some(([field, value]) => value !== undefined && !PLANNED_PAGE_FIELDS.has(field));
}

/** The page envelope (SPEC §2) as JSON text, its fields in the contract's order, around the rows' JSON. */
function pageOf(filters: LoadFilters, row: PageRow, totalCount: number): string {
  const hasMore = (filters.page - 1) * filters.pageSize + row.page_rows < totalCount;
  return `{"data":${row.data},"page":${filters.page},"pageSize":${filters.pageSize},"totalCount":${totalCount},"hasMore":${hasMore}}`;
}

/** Keeps a count for later requests when it covers every row of its feed version (count-cache.ts). */
function keep(counts: CountCache, key: string, scope: FeedScope, state: FeedState, count: number): void {
  const latest = state.latest_updated_at?.getTime() ?? -Infinity;
  if (latest <= Date.parse(scope.settledThrough)) counts.set(key, state.feed_version, latest, count);
}

/**
 * The count kept for the key, after waiting for another request's count of it if one is under way. Only
 * once a request: a count that then misses its page to a write is followed by the request's own count,
 * so that under steady writes no request waits behind count after count.
 */
async function keptOrAwaited(counts: CountCache, key: string, settledThrough: number): Promise<KeptCount | undefined> {
  const underWay = counts.counting(key);
  if (underWay) await underWay;
  return counts.get(key, settledThrough);
}

/**
 * Runs a counting statement as the key's count under way, so that requests missing meanwhile wait for it,
 * unless one is under way already (a request whose count missed its page counts again at once). The count
 * is kept before the waiters wake.
 */
function countingOnce<T>(counts: CountCache, key: string, count: () => Promise<T>): Promise<T> {
  return counts.counting(key) ? count() : counts.count(key, count);
}

/**
 * One page of a customer's settled feed: a kept count for these filters is used if the page's statement
 * reads the version it was taken at; otherwise choosePageStatement's next statement, until the page and
 * its count come from one version.
 */
export async function listLoads(
  pool: Pick<pg.Pool, 'query'>,
  counts: CountCache,
  scope: FeedScope,
  filters: LoadFilters,
  boundaries?: PageBoundaries,
): Promise<string> {
  const key = CountCache.keyOf(scope.customerId, scope.windowStart, filters);
  const settledThrough = Date.parse(scope.settledThrough);
  const position = (filters.page - 1) * filters.pageSize;
  let known: { count: number; version: string; counted: boolean } | undefined;
  let countMissed = false;
  const kept = await keptOrAwaited(counts, key, settledThrough);
  if (kept) known = { count: kept.count, version: kept.version, counted: false };
  for (;;) {
    const boundary = known && position > 0 && coversVersion(counts, key, settledThrough, known.version) ? boundaries?.get(key, position, known.version) : undefined;
    const { kind, sql, values, unplanned } = choosePageStatement(scope, filters, known?.count, countMissed, boundary?.loadNumber);
    if (kind === 'count') {
      const counted = await countingOnce(counts, key, async () => {
        const row = (await pool.query<CountRow>(sql, values)).rows[0]!;
        keep(counts, key, scope, row, Number(row.total_count));
        return row;
      });
      known = { count: Number(counted.total_count), version: counted.feed_version, counted: true };
      continue;
    }
    if (kind === 'counted page') {
      const row = await countingOnce(counts, key, async () => {
        const counted = (await pool.query<PageRow>(sql, values)).rows[0]!;
        keep(counts, key, scope, counted, Number(counted.total_count));
        return counted;
      });
      rememberPageEnd(boundaries, counts, key, settledThrough, position + row.page_rows, row);
      return pageOf(filters, row, Number(row.total_count));
    }
    let row = (await pool.query<PageRow | NoPageRow>(sql, values)).rows[0]!;
    // Only a planned statement answers no page, and it always names the query's own (choosePageStatement).
    if (row.data === null) row = (await pool.query<PageRow>(unplanned!, values)).rows[0]!;
    if (row.feed_version === known!.version) {
      rememberPageEnd(boundaries, counts, key, settledThrough, position + row.page_rows, row);
      return pageOf(filters, row, known!.count);
    }
    // A write landed between the count and the page.
    countMissed = known!.counted;
    known = undefined;
  }
}
