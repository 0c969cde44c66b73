-- Up Migration
-- The feed's filters read their own rows (sql/indexes/loads_feed_status.sql, loads_feed_pickup.sql,
-- loads_feed_delivery.sql, and the page statements of src/loads/list-statements.ts that use them): the
-- feed index alone made a filtered page walk the customer's loads in (updated_at, id) order and drop
-- those that did not match, which read every load of a big customer when the matches were all stamped
-- late (in-transit loads, last week's pickups). Built in the migration's transaction, so writes to loads
-- wait for the builds; on a big table an operator builds them first with CREATE INDEX CONCURRENTLY and
-- the same definitions, which this then finds (IF NOT EXISTS).
CREATE INDEX IF NOT EXISTS loads_feed_status ON loads (customer_id, status, updated_at, id)
  INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
  WHERE scheduled_pickup_date IS NOT NULL;
CREATE INDEX IF NOT EXISTS loads_feed_pickup ON loads (customer_id, scheduled_pickup_date)
  INCLUDE (status, updated_at, id, scheduled_delivery_date)
  WHERE scheduled_pickup_date IS NOT NULL;
CREATE INDEX IF NOT EXISTS loads_feed_delivery ON loads (customer_id, scheduled_delivery_date)
  INCLUDE (status, updated_at, id, scheduled_pickup_date)
  WHERE scheduled_pickup_date IS NOT NULL AND scheduled_delivery_date IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS loads_feed_delivery;
DROP INDEX IF EXISTS loads_feed_pickup;
DROP INDEX IF EXISTS loads_feed_status;
