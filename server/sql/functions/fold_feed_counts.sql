-- Folds the writers' appended changes (feed_count_changes, function count_feed_loads) into one counter a
-- bucket (feed_counts), so that a count reads about a row a bucket however many writes came before. One
-- statement takes the changes away and adds them up, so every snapshot sees each change exactly once:
-- still appended, or in its counter. A change not committed yet is not seen, and is folded by a later
-- call. One fold at a time (a call that finds another under way returns at once), so the counters are
-- locked by one folder only, and never by a writer. Returns how many changes it folded. The server calls
-- it every second on the primary (src/loads/count-folding.ts).
CREATE OR REPLACE FUNCTION fold_feed_counts() RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  folded bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(7241865325823965) THEN
    RETURN 0;
  END IF;
  WITH changes AS (
    DELETE FROM feed_count_changes RETURNING customer_id, pickup_day, status, loads
  ), buckets AS (
    SELECT customer_id, pickup_day, status, sum(loads) AS loads, count(*) AS changes
      FROM changes GROUP BY customer_id, pickup_day, status
  ), counted AS (
    INSERT INTO feed_counts AS c (customer_id, pickup_day, status, loads)
    SELECT customer_id, pickup_day, status, loads FROM buckets WHERE loads <> 0
     ORDER BY customer_id, pickup_day, status
        ON CONFLICT (customer_id, pickup_day, status) DO UPDATE SET loads = c.loads + excluded.loads
  )
  SELECT coalesce(sum(changes), 0) INTO folded FROM buckets;
  RETURN folded;
END
$$;
