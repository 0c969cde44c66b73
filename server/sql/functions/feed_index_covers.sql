-- Whether the feed index holds every load of a window starting at p_window_start: its cutoff
-- (feed_index_cutoff.sql) is at or before the window's start. Folded into a plan made once, as the cutoff
-- is (feed_loads_covered.sql, feed_page_from_start.sql). The server renews the index with a cutoff a month
-- or more before the window's start, so it is false only for a clock that far behind the one that renewed it.
CREATE OR REPLACE FUNCTION feed_index_covers(p_window_start timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_window_start >= feed_index_cutoff()
$$;
