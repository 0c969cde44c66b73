-- A customer's loads as the feed serves them to a query without filters but updatedSince (the initial
-- sync and the delta poll): feed_loads(q) for such a query, written so that a plan made once serves every
-- query (feed_page_from_start.sql). updatedSince is a plain bound (`-infinity` when absent), and the
-- feed index's cutoff, folded into the plan as a constant (feed_index_cutoff.sql), proves the index's
-- predicate. A window that starts before that cutoff would lose the loads between the two: then it holds
-- no row, and feed_index_covers says so (folded into the same plan as the bound, so they agree).
CREATE OR REPLACE FUNCTION feed_loads_covered(q feed_query) RETURNS SETOF loads LANGUAGE sql STABLE AS $$
  SELECT * FROM loads AS l
   WHERE l.customer_id = q.customer_id
     AND l.scheduled_pickup_date >= q.window_start
     AND l.scheduled_pickup_date >= feed_index_cutoff()
     AND l.updated_at >= coalesce(q.updated_since, '-infinity')
     AND l.updated_at <= q.settled_through
     AND feed_index_covers(q.window_start)
$$;
