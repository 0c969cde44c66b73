-- The loads' counts by customer, UTC pickup day and status (migrations/0021_feed-counts.sql), kept row by
-- row for an update that moves a load between buckets (triggers/loads.loads_count_changed.sql), and for
-- inserts and deletes in replica mode (loads_count_*_replicated; in the default mode, statement triggers
-- count them: count_inserted_feed_loads.sql): the bucket a load leaves gets -1, the one it enters +1,
-- appended to feed_count_changes in the writer's own transaction. Appended,
-- never updated in place: writers of one customer and day would otherwise wait for each other's counter
-- row until commit, and could deadlock taking two in opposite orders. A load without a pickup date is in
-- no bucket: it is never in the window. `SET search_path`: logical replication's apply worker runs with an
-- empty one.
CREATE OR REPLACE FUNCTION count_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.scheduled_pickup_date IS NOT NULL THEN
    INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
    VALUES (OLD.customer_id, (OLD.scheduled_pickup_date AT TIME ZONE 'UTC')::date, OLD.status, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.scheduled_pickup_date IS NOT NULL THEN
    INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
    VALUES (NEW.customer_id, (NEW.scheduled_pickup_date AT TIME ZONE 'UTC')::date, NEW.status, 1);
  END IF;
  RETURN NULL;
END
$$;
