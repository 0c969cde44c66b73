-- A load deleted in replica mode leaves its bucket (function count_feed_loads): ENABLE REPLICA, the
-- counterpart of loads_count_deleted.
CREATE OR REPLACE TRIGGER loads_count_deleted_replicated
  AFTER DELETE ON loads
  FOR EACH ROW WHEN (OLD.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_deleted_replicated;
