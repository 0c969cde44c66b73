-- The cutoff of the feed index (sql/indexes/loads_feed_since.sql), read from its name: the latest valid one's,
-- '-infinity' when there is none. Declared IMMUTABLE on purpose, though the answer changes once a month:
-- PostgreSQL then folds the call into a plan as the constant it returns, and a plan made once and kept
-- (feed_page_from_start.sql) can prove the index's predicate from it, which it cannot from a parameter. Such
-- a plan is never kept past a change of the answer: creating, validating or dropping an index of `loads`
-- invalidates every plan that reads `loads`, and the next use plans again and folds the call again. The
-- server renews the index with a cutoff a month or more before the window's start (src/db/feed-index.ts),
-- so a page's `scheduled_pickup_date >= feed_index_cutoff()` leaves out no load of the window.
CREATE OR REPLACE FUNCTION feed_index_cutoff() RETURNS timestamptz
LANGUAGE sql IMMUTABLE SET search_path FROM CURRENT AS $$
  SELECT coalesce(max(to_timestamp(substr(c.relname, length('loads_feed_since_') + 1, 10), 'YYYY_MM_DD')), '-infinity')
    FROM pg_index AS i
    JOIN pg_class AS c ON c.oid = i.indexrelid
   WHERE i.indrelid = 'loads'::regclass AND i.indisvalid AND c.relname LIKE 'loads\_feed\_since\_%'
$$;
