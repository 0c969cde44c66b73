-- An update that moves a load to another bucket (customer, UTC pickup day or status) moves its count
-- (function count_feed_loads); any other update, most of them, fires nothing: the WHEN is checked before
-- a trigger is queued. ALWAYS, as every trigger on loads.
CREATE OR REPLACE TRIGGER loads_count_changed
  AFTER UPDATE ON loads
  FOR EACH ROW WHEN (OLD.customer_id IS DISTINCT FROM NEW.customer_id
                     OR OLD.status IS DISTINCT FROM NEW.status
                     OR (OLD.scheduled_pickup_date AT TIME ZONE 'UTC')::date IS DISTINCT FROM (NEW.scheduled_pickup_date AT TIME ZONE 'UTC')::date)
  EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_changed;
