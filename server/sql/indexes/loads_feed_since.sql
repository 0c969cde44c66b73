-- The feed index: the list and count queries run as index-only scans over it. Its predicate holds a fixed
-- cutoff that lies before the 12-month window's start; a query's own cutoff (a bound parameter, later than
-- this one) implies the predicate, so the planner keeps choosing this index. The server re-creates it once
-- a month with a later cutoff, and whenever this definition changes (src/db/feed-index.ts, which fills in
-- :name and :cutoff); the name carries the cutoff, which is how the server finds it. Migration 0002 made
-- the first one with this same definition.
CREATE INDEX CONCURRENTLY IF NOT EXISTS :name ON loads (customer_id, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date, status)
  WHERE scheduled_pickup_date >= :cutoff::timestamptz
