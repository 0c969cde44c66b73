-- Counts every load again into the counters (migrations/0021_feed-counts.sql), for loads written while
-- the counting triggers did not fire: a data-only restore of loads alone with `--disable-triggers`, or a
-- bulk load under `ALTER TABLE loads DISABLE TRIGGER ALL`. Writers of loads wait for it (the lock), readers
-- do not; and the writers under way when it starts have committed before it reads loads, so the counts it
-- leaves are exact. `SELECT recount_feed_loads();` as the table's owner; returns the buckets counted.
CREATE OR REPLACE FUNCTION recount_feed_loads() RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  buckets bigint;
BEGIN
  LOCK TABLE loads IN SHARE ROW EXCLUSIVE MODE;
  -- After a fold under way (fold_feed_counts), which writes the counters too.
  PERFORM pg_advisory_xact_lock(7241865325823965);
  DELETE FROM feed_count_changes;
  DELETE FROM feed_counts;
  INSERT INTO feed_counts (customer_id, pickup_day, status, loads)
  SELECT l.customer_id, (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date, l.status, count(*)
    FROM loads AS l
   WHERE l.scheduled_pickup_date IS NOT NULL
   GROUP BY 1, 2, 3;
  GET DIAGNOSTICS buckets = ROW_COUNT;
  RETURN buckets;
END
$$;
