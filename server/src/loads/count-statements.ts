// Which count a query's totalCount is: the loads' counters (sql/functions/feed_count.sql: the buckets of
// whole UTC pickup days by status, plus the partial days and less the unsettled loads, O(days x statuses))
// when every filter the query has is one they answer — statuses and the pickup range — else count(*) of the
// feed's rows, which reads the narrowest index the filters have (O(matches): updatedSince, a delivery
// range, poNumber and billingRefNumber have their own). Both are exactly count(*) of feed_loads($1) in
// the statement's snapshot; test/loads/feed-count.property.test.ts holds them to it.
import type { LoadFilters } from './list-query.js';

/** The total as one row, one column n, for a query counted by its rows. */
export const ROWS_TOTAL = `SELECT count(*) AS n FROM feed_loads($1::feed_query) AS l`;

/** The same total from the counters, for a query countedByCounters says they answer. */
export const COUNTERS_TOTAL = `SELECT c.n FROM feed_count($1::feed_query) AS c(n)`;

/** What the counters answer besides the page itself: the fields of LoadFilters they count by. */
const COUNTER_FIELDS: ReadonlySet<string> = new Set<keyof LoadFilters>(['page', 'pageSize', 'statuses', 'pickupFrom', 'pickupTo']);

/**
 * Whether the counters answer the query's count. Read from the query's fields rather than a list of the
 * other filters, so that a filter added later is counted by its rows until the counters learn it.
 */
export function countedByCounters(filters: LoadFilters): boolean {
  return Object.entries(filters).every(([field, value]) => value === undefined || COUNTER_FIELDS.has(field));
}

/** The total a query's statements read: $1 is its feed_query. */
export function totalOf(filters: LoadFilters): string {
  return countedByCounters(filters) ? COUNTERS_TOTAL : ROWS_TOTAL;
}

/** The filters' exact count alone (as COUNT_SQL of list-statements.ts, with the total given). */
export function countStatement(total: string): string {
  return `
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count
  FROM feed_state(($1::feed_query).customer_id) AS s,
       (${total}) AS total`;
}

/** The count alone from the counters. */
export const COUNTERS_COUNT_SQL = countStatement(COUNTERS_TOTAL);
