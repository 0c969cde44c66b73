-- A new load written in replica mode (logical replication's apply worker, which fires row triggers only,
-- or a `session_replication_role = replica` session) is counted in its bucket (function count_feed_loads):
-- ENABLE REPLICA, the counterpart of loads_count_inserted.
CREATE OR REPLACE TRIGGER loads_count_inserted_replicated
  AFTER INSERT ON loads
  FOR EACH ROW WHEN (NEW.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_inserted_replicated;
