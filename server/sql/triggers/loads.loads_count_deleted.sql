-- A deleted load leaves its bucket (function count_feed_loads). ALWAYS, as every trigger on loads.
CREATE OR REPLACE TRIGGER loads_count_deleted
  AFTER DELETE ON loads
  FOR EACH ROW WHEN (OLD.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_deleted;
