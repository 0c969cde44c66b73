// The listLoads query: one customer's loads inside the feed window, filtered, ordered by
// (updated_at, id), one page of them and the exact count of all. The page and its totalCount always
// come from one snapshot: either one statement counts and reads the page, or the page is read with a
// count kept from an earlier snapshot at the same feed version (count-cache.ts), which the page's own
// statement reads and the caller checks.
// - The count is its own aggregate over the feed index (an index-only scan; `count(*) OVER ()` over
//   the page query measured slower).
// - The page is a deferred join: ids by an index-only scan that skips the rows before the page without
//   touching the table, then only the page's rows are read back. Plain LIMIT/OFFSET over full rows
//   measured 15x dearer for a full sweep.
// - With the count known before the page is read, a page nearer the end than the start is read from
//   the end (the same index scanned backward, skipping only the rows after the page) and put back in
//   ascending order: the deepest page skips nothing instead of the whole feed.
// - Only settled rows are read: those stamped at or before the customer's settled horizon
//   (migrations/0006_settled-feed.sql), which the caller fixes in a statement of its own before any of
//   these statements takes its snapshot. The page, its count and hasMore all come from that set.
// Absent filters are NULL parameters (`$n IS NULL OR ...`); statements are unnamed, so PostgreSQL plans
// each with its values, folds those conditions away and proves that the window cutoff implies the
// feed index's predicate.
import type pg from 'pg';
import { columnOf } from './columns.js';
import { CountCache } from './count-cache.js';
import type { LoadFilters } from './list-query.js';
import { LOAD_JSON } from './serialize.js';

const MATCHING = `
      l.customer_id = $1::bigint
  AND l.scheduled_pickup_date >= $2::timestamptz
  AND ($3::timestamptz IS NULL OR l.updated_at >= $3::timestamptz)
  AND ($4::load_status[] IS NULL OR l.status = ANY ($4::load_status[]))
  AND ($5::timestamptz IS NULL OR l.scheduled_pickup_date >= $5::timestamptz)
  AND ($6::timestamptz IS NULL OR l.scheduled_pickup_date <= $6::timestamptz)
  AND ($7::timestamptz IS NULL OR l.scheduled_delivery_date >= $7::timestamptz)
  AND ($8::timestamptz IS NULL OR l.scheduled_delivery_date <= $8::timestamptz)
  AND ($9::text IS NULL OR l.${columnOf('poNumber')} = $9::text)
  AND ($10::text IS NULL OR l.${columnOf('billingRefNumber')} = $10::text)
  AND l.updated_at <= $11::timestamptz`;

/** The page's ids, from the start: $12 is the page, $13 the page size. */
const PAGE = `
  SELECT l.id FROM loads AS l WHERE ${MATCHING}
   ORDER BY l.updated_at, l.id
  OFFSET ($12::bigint - 1) * $13::bigint LIMIT $13::bigint`;

/** The page's ids, from the end: $12 rows after the page are skipped, $13 rows are the page. */
const PAGE_FROM_END = `
  SELECT l.id FROM loads AS l WHERE ${MATCHING}
   ORDER BY l.updated_at DESC, l.id DESC
  OFFSET $12::bigint LIMIT $13::bigint`;

// The customer's feed version and latest stamp, read in the same snapshot as the rows (see count-cache.ts).
// Every statement returns them in its first row: a standby's statement is refused when its version is
// older than the primary's after the horizon (db/routing.ts).
const FEED_STATE = `coalesce((SELECT v.version FROM customer_feed_versions AS v WHERE v.customer_id = $1::bigint), 0)::text AS feed_version,
       (SELECT v.latest_updated_at FROM customer_feed_versions AS v WHERE v.customer_id = $1::bigint) AS latest_updated_at`;

/** The page's rows as one JSON array (serialize.ts), in ascending order, and how many there are. */
const PAGE_JSON = `(
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(${LOAD_JSON}, ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)`;

/** One page, its exact count and the feed version, from one snapshot. */
export const LIST_LOADS_SQL = `
WITH total AS (
  SELECT count(*) AS n FROM loads AS l WHERE ${MATCHING}
), page AS (${PAGE}
)
SELECT ${FEED_STATE}, total.n::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM total, ${PAGE_JSON} AS rows`;

/** The page whose ids `pageIds` selects, in ascending order, and the feed version, without a count. */
function uncountedPageSql(pageIds: string): string {
  return `
WITH page AS (${pageIds}
)
SELECT ${FEED_STATE}, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM ${PAGE_JSON} AS rows`;
}

/** One page and the feed version, for when a count taken at that version is kept. */
export const LIST_LOADS_UNCOUNTED_SQL = uncountedPageSql(PAGE);

/** One page read from the end, in ascending order, and the feed version, for when a count taken at that version is kept. */
export const LIST_LOADS_FROM_END_SQL = uncountedPageSql(PAGE_FROM_END);

/** The exact count and the feed version, from one snapshot, for a page that may be read from the end. */
export const COUNT_LOADS_SQL = `
SELECT ${FEED_STATE}, count(*)::text AS total_count FROM loads AS l WHERE ${MATCHING}`;

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

interface CountRow extends FeedState {
  total_count: string;
}

/** A statement and its parameters. */
export interface PageStatement {
  sql: string;
  values: unknown[];
}

/** Whose feed, and which part of it every statement reads. */
export interface FeedScope {
  customerId: string;
  /** The 12-month window's start (feedWindowStart, @loadfeed/spec). */
  windowStart: Date;
  /** The settled horizon (ISO, milliseconds): only rows stamped at or before it are read. */
  settledThrough: string;
}

/** The parameters of MATCHING ($1 to $11), in order; COUNT_LOADS_SQL takes these alone. */
export function matchingParameters({ customerId, windowStart, settledThrough }: FeedScope, filters: LoadFilters): unknown[] {
  return [
    customerId,
    windowStart.toISOString(),
    filters.updatedSince ?? null,
    filters.statuses ?? null,
    filters.pickupFrom ?? null,
    filters.pickupTo ?? null,
    filters.deliveryFrom ?? null,
    filters.deliveryTo ?? null,
    filters.poNumber ?? null,
    filters.billingRefNumber ?? null,
    settledThrough,
  ];
}

/** The parameters of LIST_LOADS_SQL and LIST_LOADS_UNCOUNTED_SQL, in order. */
export function listLoadsParameters(scope: FeedScope, filters: LoadFilters): unknown[] {
  return [...matchingParameters(scope, filters), filters.page, filters.pageSize];
}

/**
 * The statement that reads the page when the filters' exact count is `totalCount`: from the start, or
 * from the end when fewer rows follow the page than precede it (a page past the end reads no rows).
 * Either reads the same rows, in the same order, provided its snapshot holds `totalCount` rows.
 */
export function pageStatement(scope: FeedScope, filters: LoadFilters, totalCount: number): PageStatement {
  const before = (filters.page - 1) * filters.pageSize;
  const rows = Math.max(0, Math.min(filters.pageSize, totalCount - before));
  const after = Math.max(0, totalCount - before - rows);
  if (after >= before) return { sql: LIST_LOADS_UNCOUNTED_SQL, values: listLoadsParameters(scope, filters) };
  return { sql: LIST_LOADS_FROM_END_SQL, values: [...matchingParameters(scope, filters), after, rows] };
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
 * One page of a customer's settled feed. A kept count for these filters is used if the page's statement
 * reads the version it was taken at. Without one, page 1 is counted and read in one statement; a later
 * page is counted first, so that it can be read from the end (counting and skipping from the start would
 * scan the feed twice), and is counted and read in one statement only if a write lands in between.
 */
export async function listLoads(pool: Pick<pg.Pool, 'query'>, counts: CountCache, scope: FeedScope, filters: LoadFilters): Promise<string> {
  const key = CountCache.keyOf(scope.customerId, scope.windowStart, filters);
  const kept = counts.get(key, Date.parse(scope.settledThrough));
  if (kept) {
    const { sql, values } = pageStatement(scope, filters, kept.count);
    const { rows } = await pool.query<PageRow>(sql, values);
    if (rows[0]!.feed_version === kept.version) return pageOf(filters, rows[0]!, kept.count);
  }
  if (filters.page > 1) {
    const counted = (await pool.query<CountRow>(COUNT_LOADS_SQL, matchingParameters(scope, filters))).rows[0]!;
    const totalCount = Number(counted.total_count);
    keep(counts, key, scope, counted, totalCount);
    const { sql, values } = pageStatement(scope, filters, totalCount);
    const { rows } = await pool.query<PageRow>(sql, values);
    if (rows[0]!.feed_version === counted.feed_version) return pageOf(filters, rows[0]!, totalCount);
  }
  const { rows } = await pool.query<PageRow>(LIST_LOADS_SQL, listLoadsParameters(scope, filters));
  const totalCount = Number(rows[0]!.total_count);
  keep(counts, key, scope, rows[0]!, totalCount);
  return pageOf(filters, rows[0]!, totalCount);
}
