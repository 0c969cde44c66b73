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
// the page query measured slower). `feed` is NOT MATERIALIZED: each use of it is planned as its own scan.

/** The filters' exact count and one page from the start, in one snapshot: $2 page, $3 page size. */
export const COUNTED_PAGE_SQL = `
WITH feed AS NOT MATERIALIZED (
  SELECT l.id, l.updated_at FROM feed_loads($1::feed_query) AS l
), total AS (
  SELECT count(*) AS n FROM feed
), page AS (
  SELECT feed.id FROM feed
   ORDER BY feed.updated_at, feed.id
  OFFSET ($2::bigint - 1) * $3::bigint LIMIT $3::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state(($1::feed_query).customer_id) AS s, total, rows`;

/** One page from the start, without a count: $2 page, $3 page size. */
export const PAGE_FROM_START_SQL = `
WITH page AS (
  SELECT l.id FROM feed_loads($1::feed_query) AS l
   ORDER BY l.updated_at, l.id
  OFFSET ($2::bigint - 1) * $3::bigint LIMIT $3::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state(($1::feed_query).customer_id) AS s, rows`;

/**
 * One page read from the end (the feed index scanned backward), put back in ascending order: $2 rows
 * after the page are skipped, $3 rows are the page. A page nearer the end than the start skips fewer.
 */
export const PAGE_FROM_END_SQL = `
WITH page AS (
  SELECT l.id FROM feed_loads($1::feed_query) AS l
   ORDER BY l.updated_at DESC, l.id DESC
  OFFSET $2::bigint LIMIT $3::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state(($1::feed_query).customer_id) AS s, rows`;

/**
 * The same pages for a query without filters but updatedSince (the initial sync and the delta poll): the
 * statements are PL/pgSQL functions whose plan each connection makes once and keeps
 * (sql/functions/feed_page_from_start.sql, feed_page_from_end.sql), where the statements above are parsed
 * and planned with each request's values. Same parameters, same row.
 */
export const PLANNED_PAGE_FROM_START_SQL = 'SELECT * FROM feed_page_from_start($1::feed_query, $2::bigint, $3::bigint)';
export const PLANNED_PAGE_FROM_END_SQL = 'SELECT * FROM feed_page_from_end($1::feed_query, $2::bigint, $3::bigint)';

/** The filters' exact count alone. */
export const COUNT_SQL = `
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count
  FROM feed_state(($1::feed_query).customer_id) AS s,
       (SELECT count(*) AS n FROM feed_loads($1::feed_query) AS l) AS total`;
