-- The pickup-date range (pickupFrom, pickupTo): a customer's loads in the range, read as an index-only scan
-- and sorted into the feed's order (src/loads/list-statements.ts), so a page and its count read the
-- range's loads, not the customer's. Also what the SDK's pickup-range counts read.
CREATE INDEX loads_feed_pickup ON loads (customer_id, scheduled_pickup_date)
  INCLUDE (status, updated_at, id, scheduled_delivery_date)
  WHERE scheduled_pickup_date IS NOT NULL;
