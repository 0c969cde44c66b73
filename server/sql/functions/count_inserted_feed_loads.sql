-- The loads one statement inserted, counted in their buckets (migrations/0021_feed-counts.sql) at once:
-- one change a bucket the statement filled, from its transition table, instead of one a row (a row
-- trigger's call and insert cost a bulk INSERT about 70% more; this, about nothing). Statement triggers
-- fire in the default mode only, never in logical replication's apply worker nor in a
-- `session_replication_role = replica` session: there, the row trigger loads_count_inserted_replicated
-- counts each row instead (function count_feed_loads), and the two never fire together.
CREATE OR REPLACE FUNCTION count_inserted_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
  SELECT l.customer_id, (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date, l.status, count(*)
    FROM inserted_loads AS l
   WHERE l.scheduled_pickup_date IS NOT NULL
   GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;
