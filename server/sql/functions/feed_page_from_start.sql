-- One page from the start of a feed queried without filters, or with updatedSince alone (the initial sync
-- and the delta poll, most requests), as src/loads/list-statements.ts's PAGE_FROM_START_SQL reads it, in
-- a PL/pgSQL function so that its plan is made once per connection and kept. The statement with filters
-- is parsed and planned on every request: planning it with its values folds the absent filters away.
-- This one reads feed_loads_covered(q), which has none to fold and proves the feed index's predicate from a
-- constant; so its generic plan is the one a custom plan would be (an index-only scan of the feed index,
-- then the page's rows by id), and `plan_cache_mode` makes PostgreSQL keep it rather than weigh it
-- against custom plans. Parsing and planning the statement on every request was a sixth of the machine's
-- CPU under page 1 of 100: 1.77-1.83 against 1.17-1.23 ms a page (server/README.md, Benchmark).
--
-- When the feed index does not cover the window (feed_index_covers.sql) the function answers the feed's
-- state and no page (NULL rows and data), and the caller reads the page with the query's own statement
-- (src/loads/list.ts). The row is still there for its feed version, which a read on a standby checks
-- (src/db/current-enough.ts). test/loads/planned-page.test.ts holds the pages to the statement's and the
-- plan to the feed index.
CREATE OR REPLACE FUNCTION feed_page_from_start(q feed_query, p_page bigint, p_page_size bigint)
RETURNS TABLE (feed_version text, latest_updated_at timestamptz, total_count text, page_rows integer, data text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH page AS (
    SELECT l.id FROM feed_loads_covered(q) AS l
     ORDER BY l.updated_at, l.id
    OFFSET (p_page - 1) * p_page_size LIMIT p_page_size
  ), rows AS (
    SELECT count(*)::integer AS n, '[' || coalesce(string_agg(load_json(l), ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
      FROM page JOIN loads AS l ON l.id = page.id
  )
  SELECT s.feed_version, s.latest_updated_at, NULL::text,
         CASE WHEN feed_index_covers(q.window_start) THEN rows.n END,
         CASE WHEN feed_index_covers(q.window_start) THEN rows.json END
    FROM feed_state(q.customer_id) AS s, rows;
END
$$;
