// The listLoads query: one customer's loads inside the feed window, filtered, ordered by
// (updated_at, id), one page of them and the exact count of all. One statement, so that the page and
// its totalCount come from one snapshot (or a kept count of that snapshot's feed version, see
// count-cache.ts), with two scans:
// - the count is its own aggregate over the feed index (an index-only scan; `count(*) OVER ()` over
//   the page query measured slower);
// - the page is a deferred join: ids by an index-only scan that skips OFFSET rows without touching the
//   table, then only the page's rows are read back. Plain LIMIT/OFFSET over full rows measured 15x
//   dearer for a full sweep.
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

const PAGE = `
  SELECT l.id FROM loads AS l WHERE ${MATCHING}
   ORDER BY l.updated_at, l.id
  OFFSET ($11::bigint - 1) * $12::bigint LIMIT $12::bigint`;

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

/** One page and the feed version, for when a count taken at that version is kept. */
export const LIST_LOADS_UNCOUNTED_SQL = `
WITH page AS (${PAGE}
)
SELECT ${FEED_VERSION} AS feed_version, NULL::text AS total_count, ${LOAD_SELECT_LIST}
  FROM (VALUES (1)) AS one
  LEFT JOIN (page JOIN loads AS l ON l.id = page.id) ON true
 ORDER BY l.updated_at, l.id`;

interface PageRow extends Partial<LoadRow> {
  feed_version: string;
  total_count: string | null;
}

/** The parameters of LIST_LOADS_SQL, in order. */
export function listLoadsParameters(customerId: string, windowStart: Date, filters: LoadFilters): unknown[] {
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
    filters.page,
    filters.pageSize,
  ];
}

/**
 * One page of a customer's feed. With a count kept for these filters, the page is read alone and the
 * kept count used if the feed version still matches; otherwise the count is taken with the page.
 */
export async function listLoads(pool: pg.Pool, counts: CountCache, customerId: string, windowStart: Date, filters: LoadFilters): Promise<LoadPage> {
  const parameters = listLoadsParameters(customerId, windowStart, filters);
  const key = CountCache.keyOf(customerId, windowStart, filters);
  let rows: PageRow[] | undefined;
  let totalCount: number | undefined;
  if (counts.has(key)) {
    ({ rows } = await pool.query<PageRow>(LIST_LOADS_UNCOUNTED_SQL, parameters));
    totalCount = counts.get(key, rows[0]!.feed_version);
  }
  if (totalCount === undefined) {
    ({ rows } = await pool.query<PageRow>(LIST_LOADS_SQL, parameters));
    totalCount = Number(rows[0]!.total_count);
    counts.set(key, rows[0]!.feed_version, totalCount);
  }
  const data: Load[] = rows!.filter((row): row is PageRow & LoadRow => row.loadNumber != null).map(serializeLoad);
  return {
    data,
    page: filters.page,
    pageSize: filters.pageSize,
    totalCount,
    hasMore: (filters.page - 1) * filters.pageSize + data.length < totalCount,
  };
}
