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
// Absent filters are NULL parameters (`$n IS NULL OR ...`); statements are unnamed, so PostgreSQL plans
// each with its values, folds those conditions away and proves that the window cutoff implies the
// feed index's predicate.
import type { Load, LoadPage } from '@loadfeed/spec';
import type pg from 'pg';
import { columnOf } from './columns.js';
import { CountCache } from './count-cache.js';
import type { LoadFilters } from './list-query.js';
import { LOAD_SELECT_LIST, serializeLoad, type LoadRow } from './serialize.js';

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
  AND ($10::text IS NULL OR l.${columnOf('billingRefNumber')} = $10::text)`;

/** The page's ids, from the start: $11 is the page, $12 the page size. */
const PAGE = `
  SELECT l.id FROM loads AS l WHERE ${MATCHING}
   ORDER BY l.updated_at, l.id
  OFFSET ($11::bigint - 1) * $12::bigint LIMIT $12::bigint`;

/** The page's ids, from the end: $11 rows after the page are skipped, $12 rows are the page. */
const PAGE_FROM_END = `
  SELECT l.id FROM loads AS l WHERE ${MATCHING}
   ORDER BY l.updated_at DESC, l.id DESC
  OFFSET $11::bigint LIMIT $12::bigint`;

// The customer's feed version, read in the same snapshot as the rows (see count-cache.ts).
const FEED_VERSION = `coalesce((SELECT v.version FROM customer_feed_versions AS v WHERE v.customer_id = $1::bigint), 0)::text`;

/** One page, its exact count and the feed version, from one snapshot. */
export const LIST_LOADS_SQL = `
WITH total AS (
  SELECT count(*) AS n FROM loads AS l WHERE ${MATCHING}
), page AS (${PAGE}
)
SELECT ${FEED_VERSION} AS feed_version, total.n::text AS total_count, ${LOAD_SELECT_LIST}
  FROM total
  LEFT JOIN (page JOIN loads AS l ON l.id = page.id) ON true
 ORDER BY l.updated_at, l.id`;

/** The page whose ids `pageIds` selects, in ascending order, and the feed version, without a count. */
function uncountedPageSql(pageIds: string): string {
  return `
WITH page AS (${pageIds}
)
SELECT ${FEED_VERSION} AS feed_version, NULL::text AS total_count, ${LOAD_SELECT_LIST}
  FROM (VALUES (1)) AS one
  LEFT JOIN (page JOIN loads AS l ON l.id = page.id) ON true
 ORDER BY l.updated_at, l.id`;
}

/** One page and the feed version, for when a count taken at that version is kept. */
export const LIST_LOADS_UNCOUNTED_SQL = uncountedPageSql(PAGE);

/** One page read from the end, in ascending order, and the feed version, for when a count taken at that version is kept. */
export const LIST_LOADS_FROM_END_SQL = uncountedPageSql(PAGE_FROM_END);

/** The exact count and the feed version, from one snapshot, for a page that may be read from the end. */
export const COUNT_LOADS_SQL = `
SELECT ${FEED_VERSION} AS feed_version, count(*)::text AS total_count FROM loads AS l WHERE ${MATCHING}`;

interface PageRow extends Partial<LoadRow> {
  feed_version: string;
  total_count: string | null;
}

interface CountRow {
  feed_version: string;
  total_count: string;
}

/** A statement and its parameters. */
export interface PageStatement {
  sql: string;
  values: unknown[];
}

/** The parameters of MATCHING ($1 to $10), in order; COUNT_LOADS_SQL takes these alone. */
export function matchingParameters(customerId: string, windowStart: Date, filters: LoadFilters): unknown[] {
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
  ];
}

/** The parameters of LIST_LOADS_SQL and LIST_LOADS_UNCOUNTED_SQL, in order. */
export function listLoadsParameters(customerId: string, windowStart: Date, filters: LoadFilters): unknown[] {
  return [...matchingParameters(customerId, windowStart, filters), filters.page, filters.pageSize];
}

/**
 * The statement that reads the page when the filters' exact count is `totalCount`: from the start, or
 * from the end when fewer rows follow the page than precede it (a page past the end reads no rows).
 * Either reads the same rows, in the same order, provided its snapshot holds `totalCount` rows.
 */
export function pageStatement(customerId: string, windowStart: Date, filters: LoadFilters, totalCount: number): PageStatement {
  const before = (filters.page - 1) * filters.pageSize;
  const rows = Math.max(0, Math.min(filters.pageSize, totalCount - before));
  const after = Math.max(0, totalCount - before - rows);
  if (after >= before) return { sql: LIST_LOADS_UNCOUNTED_SQL, values: listLoadsParameters(customerId, windowStart, filters) };
  return { sql: LIST_LOADS_FROM_END_SQL, values: [...matchingParameters(customerId, windowStart, filters), after, rows] };
}

function pageOf(filters: LoadFilters, rows: PageRow[], totalCount: number): LoadPage {
  const data: Load[] = rows.filter((row): row is PageRow & LoadRow => row.loadNumber != null).map(serializeLoad);
  return {
    data,
    page: filters.page,
    pageSize: filters.pageSize,
    totalCount,
    hasMore: (filters.page - 1) * filters.pageSize + data.length < totalCount,
  };
}

/**
 * One page of a customer's feed. A kept count for these filters is used if the page's statement reads
 * the version it was taken at. Without one, page 1 is counted and read in one statement; a later page
 * is counted first, so that it can be read from the end (counting and skipping from the start would
 * scan the feed twice), and is counted and read in one statement only if a write lands in between.
 */
export async function listLoads(pool: pg.Pool, counts: CountCache, customerId: string, windowStart: Date, filters: LoadFilters): Promise<LoadPage> {
  const key = CountCache.keyOf(customerId, windowStart, filters);
  const kept = counts.get(key);
  if (kept) {
    const { sql, values } = pageStatement(customerId, windowStart, filters, kept.count);
    const { rows } = await pool.query<PageRow>(sql, values);
    if (rows[0]!.feed_version === kept.version) return pageOf(filters, rows, kept.count);
  }
  if (filters.page > 1) {
    const counted = (await pool.query<CountRow>(COUNT_LOADS_SQL, matchingParameters(customerId, windowStart, filters))).rows[0]!;
    const totalCount = Number(counted.total_count);
    counts.set(key, counted.feed_version, totalCount);
    const { sql, values } = pageStatement(customerId, windowStart, filters, totalCount);
    const { rows } = await pool.query<PageRow>(sql, values);
    if (rows[0]!.feed_version === counted.feed_version) return pageOf(filters, rows, totalCount);
  }
  const { rows } = await pool.query<PageRow>(LIST_LOADS_SQL, listLoadsParameters(customerId, windowStart, filters));
  const totalCount = Number(rows[0]!.total_count);
  counts.set(key, rows[0]!.feed_version, totalCount);
  return pageOf(filters, rows, totalCount);
}
