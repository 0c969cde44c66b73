-- The feed index: the list and count queries run as index-only scans over it. Its predicate holds a fixed
-- cutoff that lies before the 12-month window's start; a query's own cutoff (a bound parameter, later than
-- this one) implies the predicate, so the planner keeps choosing this index. The server re-creates it
-- (CONCURRENTLY) once a month with a later cutoff, and whenever the index there is not what this file
-- makes: src/db/feed-index.ts fills in :name and :cutoff. The name carries the cutoff, which is how the
-- server finds it. Migration 0002 made the first one, with this same definition.
CREATE INDEX IF NOT EXISTS :name ON loads (customer_id, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date, status)
  WHERE scheduled_pickup_date >= :cutoff::timestamptz
