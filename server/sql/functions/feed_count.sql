-- The number of loads feed_loads(q) holds, for a query whose only filters are statuses and a pickup range
-- (src/loads/count-statements.ts says which), read from the counters (migrations/0021_feed-counts.sql)
-- instead of the customer's rows: O(days x statuses) whatever the customer's size. In the caller's
-- snapshot it is exactly count(*) of feed_loads(q), the settled loads picked up in [low, high] (low: the
-- window's start or pickupFrom, whichever is later; high: pickupTo):
--   the counters of the UTC days [first_at, end_at) (feed_counts, plus the changes not folded yet,
--   feed_count_changes: each written in the transaction that wrote its load, so a snapshot sees the counts
--   of exactly the loads it sees), a bound inside a day rounded to the nearer midnight
-- - the loads of those days that the settled horizon leaves out (stamped after q.settled_through): a range
--   of the feed index, the last moments' writes
-- + or - the settled loads between each bound and its midnight (at most half a day each, counted from the
--   pickup index by their days, with every rule of feed_loads): added where the bound was rounded
--   inward, taken away where it was rounded outward. A pickupTo given as a date (its day's last
--   millisecond) is rounded up to the next midnight, and the loads after that millisecond, none as a
--   rule, are taken away.
-- Without pickupTo, the counters and the horizon's loads have no upper bound (a load picked up at
-- 'infinity' has the day 'infinity'). One row, one column. A set-returning LANGUAGE sql function of one
-- SELECT, so that PostgreSQL inlines it into the caller's statement and folds the bounds, made of the
-- query's fields, to constants.
CREATE OR REPLACE FUNCTION feed_count(q feed_query) RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN d.low > d.high THEN 0 ELSE
         (SELECT coalesce(sum(c.loads), 0)
            FROM (SELECT f.loads FROM feed_counts AS f
                   WHERE f.customer_id = q.customer_id AND f.pickup_day >= d.first_day
                     AND (q.pickup_to IS NULL OR f.pickup_day < d.end_day)
                     AND (q.statuses IS NULL OR f.status = ANY (q.statuses))
                  UNION ALL
                  SELECT f.loads FROM feed_count_changes AS f
                   WHERE f.customer_id = q.customer_id AND f.pickup_day >= d.first_day
                     AND (q.pickup_to IS NULL OR f.pickup_day < d.end_day)
                     AND (q.statuses IS NULL OR f.status = ANY (q.statuses))) AS c)
       - (SELECT count(*) FROM loads AS l
           WHERE l.customer_id = q.customer_id
             AND l.scheduled_pickup_date >= q.window_start AND l.scheduled_pickup_date >= d.first_at
             AND (q.pickup_to IS NULL OR l.scheduled_pickup_date < d.end_at)
             AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
             AND l.updated_at > q.settled_through)
       -- Each CASE below is decided when the statement is planned (its bounds are constants), so a bound on
       -- a midnight, or none, plans no statement for its edge.
       + CASE WHEN d.low < d.first_at THEN
           (SELECT count(*) FROM loads AS l
             WHERE l.customer_id = q.customer_id
               AND l.scheduled_pickup_date >= d.low AND l.scheduled_pickup_date < d.first_at
               AND (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date BETWEEN d.low_day AND d.first_day
               AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
               AND l.updated_at <= q.settled_through)
              WHEN d.low > d.first_at THEN
         - (SELECT count(*) FROM loads AS l
             WHERE l.customer_id = q.customer_id
               AND l.scheduled_pickup_date >= d.first_at AND l.scheduled_pickup_date < d.low
               AND (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date BETWEEN d.first_day AND d.low_day
               AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
               AND l.updated_at <= q.settled_through)
              ELSE 0 END
       + CASE WHEN q.pickup_to IS NULL THEN 0
              WHEN d.end_at <= d.high THEN
           (SELECT count(*) FROM loads AS l
             WHERE l.customer_id = q.customer_id
               AND l.scheduled_pickup_date >= d.end_at AND l.scheduled_pickup_date <= d.high
               AND (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date BETWEEN d.end_day AND d.high_day
               AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
               AND l.updated_at <= q.settled_through)
              ELSE
         - (SELECT count(*) FROM loads AS l
             WHERE l.customer_id = q.customer_id
               AND l.scheduled_pickup_date > d.high AND l.scheduled_pickup_date < d.end_at
               AND (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date BETWEEN d.high_day AND d.end_day
               AND (q.statuses IS NULL OR l.status = ANY (q.statuses))
               AND l.updated_at <= q.settled_through)
         END
         END
    FROM (SELECT b.low, b.high, b.first_day, b.end_day,
                 b.first_day::timestamp AT TIME ZONE 'UTC' AS first_at, b.end_day::timestamp AT TIME ZONE 'UTC' AS end_at,
                 -- The days of the bounds themselves: a partial day's loads are read by their day in the
                 -- pickup index (loads_feed_pickup_day), not by the customer's every pickup.
                 (b.low AT TIME ZONE 'UTC')::date AS low_day, (b.high AT TIME ZONE 'UTC')::date AS high_day
            FROM (SELECT r.low, r.high,
                         -- Each bound to its nearer midnight (noon: up). low <= high makes first_day <= end_day.
                         -- Made of immutable steps only (a timestamptz plus an interval is not: it reads the
                         -- time zone), so that the planner folds them.
                         ((r.low AT TIME ZONE 'UTC') + interval '12 hours')::date AS first_day,
                         ((r.high AT TIME ZONE 'UTC') + interval '12 hours')::date AS end_day
                    FROM (SELECT greatest(q.window_start, q.pickup_from) AS low,
                                 coalesce(q.pickup_to, 'infinity') AS high) AS r) AS b) AS d
$$;
