-- A new load is counted in its customer's, pickup day's and status's bucket (function count_feed_loads).
-- ALWAYS, as every trigger on loads (triggers/loads.loads_keep_updated_at.sql): logical replication's apply
-- worker fires row triggers, and counts what it writes like any other write.
CREATE OR REPLACE TRIGGER loads_count_inserted
  AFTER INSERT ON loads
  FOR EACH ROW WHEN (NEW.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_inserted;
