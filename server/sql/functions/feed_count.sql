-- The number of loads feed_loads(q) holds, for a query whose only filters are statuses and a pickup range
-- (src/loads/count-statements.ts says which), read from the counters (migrations/0021_feed-counts.sql)
-- instead of the customer's rows: O(days x statuses) whatever the customer's size. In the caller's
-- snapshot it is exactly count(*) of feed_loads(q):
--   the counters of every whole UTC pickup day of the range (feed_counts, plus the changes not folded
--   yet, feed_count_changes: each written in the transaction that wrote its load, so a snapshot sees the
--   counts of exactly the loads it sees)
-- + the loads of the range's partial days, its first and last (a bound that is not midnight UTC), counted
--   from the pickup index (indexes/loads_feed_pickup.sql) with every rule of feed_loads
-- - the loads of the whole days that the settled horizon leaves out (stamped after q.settled_through): a
--   range of the feed index, the last moments' writes.
-- One row, one column. A set-returning LANGUAGE sql function of one SELECT, so that PostgreSQL inlines it
-- into the caller's statement and folds the day bounds, made of the query's fields, to constants.
CREATE OR REPLACE FUNCTION feed_count(q feed_query) RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
  SELECT (SELECT coalesce(sum(c.loads), 0)
            FROM (SELECT f.loads FROM feed_counts AS f
                   WHERE f.customer_id = q.customer_id AND f.pickup_day >= d.first_day AND f.pickup_day < d.end_day
                     AND (q.statuses IS NULL OR f.status = ANY (q.statuses))
                  UNION ALL
                  SELECT f.loads FROM feed_count_changes AS f
                   WHERE f.customer_id = q.customer_id AND f.pickup_day >= d.first_day AND f.pickup_day < d.end_day
                     AND (q.statuses IS NULL OR f.status = ANY (q.statuses))) AS c)
       + (SELECT count(*) FROM loads AS l
           WHERE l.customer_id = q.customer_id
             AND l.scheduled_pickup_date >= d.low AND l.scheduled_pickup_date < d.first_at
             AND (q.pickup_to IS NULL OR l.scheduled_pickup_date <= q.pickup_to)
             AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
             AND l.updated_at <= q.settled_through)
       + (SELECT count(*) FROM loads AS l
           WHERE l.customer_id = q.customer_id
             AND l.scheduled_pickup_date >= d.end_at AND (q.pickup_to IS NULL OR l.scheduled_pickup_date <= q.pickup_to)
             AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
             AND l.updated_at <= q.settled_through)
       - (SELECT count(*) FROM loads AS l
           WHERE l.customer_id = q.customer_id
             AND l.scheduled_pickup_date >= q.window_start
             AND l.scheduled_pickup_date >= d.first_at AND l.scheduled_pickup_date < d.end_at
             AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
             AND l.updated_at > q.settled_through)
    FROM (SELECT b.low, b.first_day, b.end_day,
                 b.first_day::timestamp AT TIME ZONE 'UTC' AS first_at, b.end_day::timestamp AT TIME ZONE 'UTC' AS end_at
            FROM (SELECT r.low,
                         -- The first whole day: the low bound's own when it is midnight, else the next.
                         ((r.low - interval '1 microsecond') AT TIME ZONE 'UTC')::date + 1 AS first_day,
                         -- The day after the last whole one; never before first_day, so that a range inside
                         -- one day is all partial (first_at = end_at) and reads no counter.
                         greatest(((r.high + interval '1 microsecond') AT TIME ZONE 'UTC')::date,
                                  ((r.low - interval '1 microsecond') AT TIME ZONE 'UTC')::date + 1) AS end_day
                    FROM (SELECT greatest(q.window_start, q.pickup_from) AS low,
                                 coalesce(q.pickup_to, 'infinity') AS high) AS r) AS b) AS d
$$;
