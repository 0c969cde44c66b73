-- Up Migration
-- The feed's filters read their own rows (sql/indexes/loads_feed_status.sql, loads_feed_pickup.sql,
-- loads_feed_delivery.sql, and the page statements of src/loads/list-statements.ts that use them): the
-- feed index alone made a filtered page walk the customer's loads in (updated_at, id) order and drop
-- those that did not match, which read every load of a big customer when the matches were all stamped
-- late (in-transit loads, last week's pickups).
-- An index built here is built in the migration's transaction, and writes to loads wait for the build
-- (minutes on millions of loads). So on a big table an operator builds them first, without blocking
-- writes, with CREATE INDEX CONCURRENTLY and the same definitions (server/DESIGN.md, "Upgrade notes"
-- gives the commands): an index that is there and valid is kept without touching loads (no lock on it),
-- and one that a concurrent build left invalid (it failed or was cancelled) is built again.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = to_regclass('loads_feed_status') AND indisvalid) THEN
    DROP INDEX IF EXISTS loads_feed_status;
    CREATE INDEX loads_feed_status ON loads (customer_id, status, updated_at, id)
      INCLUDE (scheduled_pickup_date, scheduled_delivery_date)
      WHERE scheduled_pickup_date IS NOT NULL;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = to_regclass('loads_feed_pickup') AND indisvalid) THEN
    DROP INDEX IF EXISTS loads_feed_pickup;
    CREATE INDEX loads_feed_pickup ON loads (customer_id, scheduled_pickup_date)
      INCLUDE (status, updated_at, id, scheduled_delivery_date)
      WHERE scheduled_pickup_date IS NOT NULL;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_index WHERE indexrelid = to_regclass('loads_feed_delivery') AND indisvalid) THEN
    DROP INDEX IF EXISTS loads_feed_delivery;
    CREATE INDEX loads_feed_delivery ON loads (customer_id, scheduled_delivery_date)
      INCLUDE (status, updated_at, id, scheduled_pickup_date)
      WHERE scheduled_pickup_date IS NOT NULL AND scheduled_delivery_date IS NOT NULL;
  END IF;
END
$$;

-- Down Migration
DROP INDEX IF EXISTS loads_feed_delivery;
DROP INDEX IF EXISTS loads_feed_pickup;
DROP INDEX IF EXISTS loads_feed_status;
