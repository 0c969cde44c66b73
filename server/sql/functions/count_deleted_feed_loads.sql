-- The loads one statement deleted, taken out of their buckets at once (as count_inserted_feed_loads does
-- for inserts; the row trigger loads_count_deleted_replicated does it in replica mode).
CREATE OR REPLACE FUNCTION count_deleted_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
  SELECT l.customer_id, (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date, l.status, -count(*)
    FROM deleted_loads AS l
   WHERE l.scheduled_pickup_date IS NOT NULL
   GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;
