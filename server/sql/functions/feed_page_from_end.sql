-- One page read from the end of a feed queried without filters, or with updatedSince alone, as
-- src/loads/list-statements.ts's PAGE_FROM_END_SQL reads it ($2 rows after the page skipped, $3 rows the
-- page, put back in ascending order), with its plan made once per connection and kept: see
-- feed_page_from_start.sql, whose twin it is.
CREATE OR REPLACE FUNCTION feed_page_from_end(q feed_query, p_after bigint, p_rows bigint)
RETURNS TABLE (feed_version text, latest_updated_at timestamptz, total_count text, page_rows integer, data text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH page AS (
    SELECT l.id FROM feed_loads_covered(q) AS l
     ORDER BY l.updated_at DESC, l.id DESC
    OFFSET p_after LIMIT p_rows
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
