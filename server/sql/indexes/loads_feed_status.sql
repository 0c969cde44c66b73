-- The status filter, alone or with updatedSince: each status's loads of a customer in the feed's order, so
-- a page walks the matches only (one walk a status, merged: src/loads/list-statements.ts). Covering, so the
-- walk and its count are index-only scans, and a pickup or delivery range given with the status is
-- checked in the index. Loads without a pickup date are never in the window.
CREATE INDEX loads_feed_status ON loads (customer_id, status, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
  WHERE scheduled_pickup_date IS NOT NULL;
