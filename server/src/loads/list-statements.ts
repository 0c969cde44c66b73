// The statements of listLoads, as SQL. Which rows the feed holds and the customer's feed version are
// functions (sql/functions/feed_loads.sql, feed_state.sql), which PostgreSQL inlines into these
// statements; so is each load's JSON (load_json), made for the page's rows only, after the skip. Every
// statement returns the feed version and latest stamp read in its own snapshot (count-cache.ts,
// db/current-enough.ts), and a page statement the page's loads as one JSON array.
//
// $1 is the feed's query (the type feed_query: customer, window start, filters, settled horizon; see
// feedParameters in list.ts); each statement reads the feed once, from feed_loads($1), and the customer's
// state from feed_state(($1).customer_id). A page statement takes two more, as it says. In psql:
// PREPARE page(feed_query, bigint, bigint) AS <statement>; EXECUTE page('(1,2026-01-01T00:00:00Z,,,,,,,,,2026-12-01T00:00:00Z)', 1, 100);
//
// The page is a deferred join: ids by an index-only scan that skips the rows before the page without
// touching the table, then only the page's rows are read back. Plain LIMIT/OFFSET over full rows measured
// 15x dearer for a full sweep. The count is its own aggregate over the feed index (`count(*) OVER ()` over
// the page query measured slower), planned apart from the page: each reads the narrowest index it can;
// or, for statuses and a pickup range, the loads' counters (count-statements.ts).
import { COUNTERS_TOTAL, ROWS_TOTAL, countStatement } from './count-statements.js';

/**
 * How a page's ids are found in the feed, by what the query filters (list.ts, feedAccessOf; the indexes
 * are sql/indexes/loads_feed_*.sql). The planner prices a LIMIT as if the matches were spread evenly
 * through the feed's order; they are not (in-transit loads and last week's pickups are all stamped
 * late), so a statement that lets it walk the feed index and drop what does not match reads the whole
 * customer to find a page. Each form below reads at most the page's skip and take plus the rows its
 * index yields for the filters:
 * - `feed`: the feed in its order, for no filter but updatedSince (the feed index), or an exact match
 *   (poNumber, billingRefNumber: their indexes hold a few rows, which the planner sorts).
 * - `status`: one walk a status, in the feed's order, over the status index, each taking no more than the
 *   page needs, merged: O(statuses x (skip + take)). A walk reads under feed_query_any_status(q), the query
 *   without its status filter (the walk fixes the status): PostgreSQL 15 otherwise takes
 *   `status = ANY (...)` as the index's condition and sorts every load of the status.
 * - `pickup days`, `delivery days`: a pickup or delivery range, one walk a bucket (UTC day and status) of
 *   the range, of the statuses asked for if any, in the feed's order, over the day index
 *   (loads_feed_pickup_day.sql, loads_feed_delivery_day.sql), each taking no more than the page needs,
 *   merged: O(buckets x (skip + take)), and never more than the range's matches. The buckets are those of
 *   the range that hold a load, each found by a seek past the one before (a recursive walk of the distinct
 *   buckets), so an open or far bound costs nothing for the days without loads.
 */
export type FeedAccess = 'feed' | 'status' | 'pickup days' | 'delivery days';

/** ORDER BY of the feed's order, forward or backward: $a and $b stand for the time and id columns. */
function order(direction: 'ASC' | 'DESC', time: string, id: string): string {
  return `${time} ${direction}, ${id} ${direction}`;
}

/**
 * A day walk's UTC day of a load, as its index (sql/indexes/loads_feed_*_day.sql) is keyed, and the loads
 * of the query's range: the same day bounds feed_loads.sql adds to the range. The buckets are looked for
 * in the loads of the range alone, not the feed's other filters, so that each is one seek of the day index.
 */
const DAY_WALKS = {
  'pickup days': {
    day: "(l.scheduled_pickup_date AT TIME ZONE 'UTC')::date",
    range: `l.scheduled_pickup_date >= ($1::feed_query).window_start
         AND (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date >= (greatest(($1::feed_query).window_start, ($1::feed_query).pickup_from) AT TIME ZONE 'UTC')::date
         AND (($1::feed_query).pickup_to IS NULL OR (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date <= (($1::feed_query).pickup_to AT TIME ZONE 'UTC')::date)`,
  },
  'delivery days': {
    day: "(l.scheduled_delivery_date AT TIME ZONE 'UTC')::date",
    range: `l.scheduled_pickup_date >= ($1::feed_query).window_start AND l.scheduled_delivery_date IS NOT NULL
         AND (($1::feed_query).delivery_from IS NULL OR (l.scheduled_delivery_date AT TIME ZONE 'UTC')::date >= (($1::feed_query).delivery_from AT TIME ZONE 'UTC')::date)
         AND (($1::feed_query).delivery_to IS NULL OR (l.scheduled_delivery_date AT TIME ZONE 'UTC')::date <= (($1::feed_query).delivery_to AT TIME ZONE 'UTC')::date)`,
  },
} as const;

/**
 * Rows after the load $2 (a load number of the customer's) in the feed's order: where the page before ended
 * (page-boundaries.ts). Compared as a row, so that each index the page reads seeks to it.
 */
const AFTER_LOAD = `(l.updated_at, l.id) > (SELECT b.updated_at, b.id FROM loads AS b
                                       WHERE b.customer_id = ($1::feed_query).customer_id AND b.load_number = $2::text)`;

/**
 * The page's ids (one column, id), `skip` rows passed and `take` rows kept in `direction`; with `after`,
 * of the rows after that condition's row only.
 */
function pageIds(access: FeedAccess, direction: 'ASC' | 'DESC', skip: string, take: string, after?: string): string {
  if (access === 'status') {
    return `
  SELECT w.id FROM (SELECT DISTINCT unnest(($1::feed_query).statuses) AS status) AS s
   CROSS JOIN LATERAL (
     SELECT l.id, l.updated_at FROM feed_loads(feed_query_any_status($1::feed_query)) AS l
      WHERE l.status = s.status${after ? `\n        AND ${after}` : ''}
      ORDER BY ${order(direction, 'l.updated_at', 'l.id')}
      LIMIT ${skip} + ${take}) AS w
   ORDER BY ${order(direction, 'w.updated_at', 'w.id')}
  OFFSET ${skip} LIMIT ${take}`;
  }
  if (access === 'pickup days' || access === 'delivery days') {
    const { day, range } = DAY_WALKS[access];
    // The range's first bucket (UTC day, status) that meets `past`, as an ordered walk of the day index that
    // stops at one (written so, not as min(): the planner may otherwise aggregate every load of the range).
    const firstBucket = (past: string) => `SELECT ${day} AS day, l.status FROM loads AS l
       WHERE l.customer_id = ($1::feed_query).customer_id
         AND ${range}${past}
       ORDER BY 1, 2 LIMIT 1`;
    return `
  WITH RECURSIVE buckets(day, status) AS (
    (${firstBucket('')})
    UNION ALL
    SELECT n.day, n.status FROM buckets AS b
     CROSS JOIN LATERAL (${firstBucket(`\n         AND (${day}, l.status) > (b.day, b.status)`)}) AS n)
  SELECT w.id FROM buckets
   CROSS JOIN LATERAL (
     SELECT l.id, l.updated_at FROM feed_loads(feed_query_any_status($1::feed_query)) AS l
      WHERE ${day} = buckets.day AND l.status = buckets.status${after ? `\n        AND ${after}` : ''}
      ORDER BY ${order(direction, 'l.updated_at', 'l.id')}
      LIMIT ${skip} + ${take}) AS w
   WHERE ($1::feed_query).statuses IS NULL OR buckets.status = ANY (($1::feed_query).statuses)
   ORDER BY ${order(direction, 'w.updated_at', 'w.id')}
  OFFSET ${skip} LIMIT ${take}`;
  }
  return `
  SELECT l.id FROM feed_loads($1::feed_query) AS l${after ? `\n   WHERE ${after}` : ''}
   ORDER BY ${order(direction, 'l.updated_at', 'l.id')}
  OFFSET ${skip} LIMIT ${take}`;
}

const FROM_START = ['($2::bigint - 1) * $3::bigint', '$3::bigint'] as const;
const FROM_END = ['$2::bigint', '$3::bigint'] as const;

/** The page's rows, read back by id, as one JSON array in the feed's order. */
const ROWS = `rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)`;

/**
 * The filters' exact count and one page from the start, in one snapshot: $2 page, $3 page size. The total
 * is count-statements.ts's: the feed's rows counted, or its counters read.
 */
export function countedPage(access: FeedAccess, total = ROWS_TOTAL): string {
  return `
WITH total AS (${total}
), page AS (${pageIds(access, 'ASC', ...FROM_START)}
), ${ROWS}
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state(($1::feed_query).customer_id) AS s, total, rows`;
}

/** One page, without a count. */
function page(access: FeedAccess, from: 'start' | 'end' | 'after'): string {
  const ids =
    from === 'start' ? pageIds(access, 'ASC', ...FROM_START) : from === 'end' ? pageIds(access, 'DESC', ...FROM_END) : pageIds(access, 'ASC', '0', '$3::bigint', AFTER_LOAD);
  return `
WITH page AS (${ids}
), ${ROWS}
SELECT s.feed_version, s.latest_updated_at, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state(($1::feed_query).customer_id) AS s, rows`;
}

export interface PageStatements {
  /** The filters' exact count and one page from the start, in one snapshot: $2 page, $3 page size. */
  countedPage: string;
  /** The same, the count read from the counters (count-statements.ts, countedByCounters). */
  countedPageByCounters: string;
  /** One page from the start, without a count: $2 page, $3 page size. */
  fromStart: string;
  /**
   * One page read from the end (the order scanned backward), put back in ascending order: $2 rows after
   * the page are skipped, $3 rows are the page. A page nearer the end than the start skips fewer.
   */
  fromEnd: string;
  /** One page after a load, without a count: $2 the load number of the page before's last load, $3 page size. */
  afterLoad: string;
}

function statementsOf(access: FeedAccess): PageStatements {
  return {
    countedPage: countedPage(access),
    countedPageByCounters: countedPage(access, COUNTERS_TOTAL),
    fromStart: page(access, 'start'),
    fromEnd: page(access, 'end'),
    afterLoad: page(access, 'after'),
  };
}

/** The page statements of each access, made once. */
export const PAGE_STATEMENTS: Readonly<Record<FeedAccess, PageStatements>> = {
  feed: statementsOf('feed'),
  status: statementsOf('status'),
  'pickup days': statementsOf('pickup days'),
  'delivery days': statementsOf('delivery days'),
};

/** The feed access's statements under their own names (the statements most tests and benchmarks read). */
export const COUNTED_PAGE_SQL = PAGE_STATEMENTS.feed.countedPage;
export const PAGE_FROM_START_SQL = PAGE_STATEMENTS.feed.fromStart;
export const PAGE_FROM_END_SQL = PAGE_STATEMENTS.feed.fromEnd;

/**
 * The same pages for a query without filters but updatedSince (the initial sync and the delta poll): the
 * statements are PL/pgSQL functions whose plan each connection makes once and keeps
 * (sql/functions/feed_page_from_start.sql, feed_page_from_end.sql), where the statements above are parsed
 * and planned with each request's values. Same parameters, same row.
 */
export const PLANNED_PAGE_FROM_START_SQL = 'SELECT * FROM feed_page_from_start($1::feed_query, $2::bigint, $3::bigint)';
export const PLANNED_PAGE_FROM_END_SQL = 'SELECT * FROM feed_page_from_end($1::feed_query, $2::bigint, $3::bigint)';

/** The filters' exact count alone. */
export const COUNT_SQL = countStatement(ROWS_TOTAL);
