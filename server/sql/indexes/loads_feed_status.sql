-- The status filter, alone or with updatedSince: each status's loads of a customer in the feed's order, so
-- a page walks the matches only (one walk a status, merged: src/loads/list-statements.ts). Covering, so the
-- walk and its count are index-only scans, and a pickup or delivery range given with the status is
-- checked in the index. Its predicate holds the feed index's cutoff (loads_feed_since.sql), before the
-- 12-month window's start, which a query's window start implies: the loads that aged out of the window
-- are not in it, so a walk of a status does not read the status's history before reaching the window
-- (a customer's aged-out loads are stamped before its window's). The server re-creates it with the feed
-- index, once a month with a later cutoff, and whenever the index there is not what this file makes:
-- src/db/feed-index.ts fills in :name and :cutoff, and the name carries the cutoff. Migration 0020 made
-- the first one, with this same definition.
CREATE INDEX IF NOT EXISTS :name ON loads (customer_id, status, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
  WHERE scheduled_pickup_date >= :cutoff::timestamptz
