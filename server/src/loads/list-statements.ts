// The statements of listLoads, as SQL. Which rows the feed holds and the customer's feed version are
// functions of migrations/0009_feed-functions.sql, which PostgreSQL inlines into these statements; so is
// each load's JSON (load_json, migrations/0015_page-json-built-per-page.sql), made for the page's rows
// only, after the skip. Every statement returns the feed version and latest stamp read in its own
// snapshot (count-cache.ts, db/routing.ts), and a page statement the page's loads as one JSON array.
//
// Parameters: $1 customer id, $2 the window's start, $3 updatedSince, $4 statuses, $5 pickupFrom,
// $6 pickupTo, $7 deliveryFrom, $8 deliveryTo, $9 poNumber, $10 billingRefNumber (NULL: no filter),
// $11 the settled horizon; then $12 and $13 as each statement says.
//
// The page is a deferred join: ids by an index-only scan that skips the rows before the page without
// touching the table, then only the page's rows are read back. Plain LIMIT/OFFSET over full rows measured
// 15x dearer for a full sweep. The count is its own aggregate over the feed index (`count(*) OVER ()` over
// the page query measured slower).

/** The filters' exact count and one page from the start, in one snapshot: $12 page, $13 page size. */
export const COUNTED_PAGE_SQL = `
WITH total AS (
  SELECT count(*) AS n
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
), page AS (
  SELECT l.id
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
   ORDER BY l.updated_at, l.id
  OFFSET ($12::bigint - 1) * $13::bigint LIMIT $13::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state($1::bigint) AS s, total, rows`;

/** One page from the start, without a count: $12 page, $13 page size. */
export const PAGE_FROM_START_SQL = `
WITH page AS (
  SELECT l.id
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
   ORDER BY l.updated_at, l.id
  OFFSET ($12::bigint - 1) * $13::bigint LIMIT $13::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state($1::bigint) AS s, rows`;

/**
 * One page read from the end (the feed index scanned backward), put back in ascending order: $12 rows
 * after the page are skipped, $13 rows are the page. A page nearer the end than the start skips fewer.
 */
export const PAGE_FROM_END_SQL = `
WITH page AS (
  SELECT l.id
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
   ORDER BY l.updated_at DESC, l.id DESC
  OFFSET $12::bigint LIMIT $13::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, NULL::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state($1::bigint) AS s, rows`;

/** The filters' exact count alone. */
export const COUNT_SQL = `
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count
  FROM feed_state($1::bigint) AS s,
       (SELECT count(*) AS n
          FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
       ) AS total`;
