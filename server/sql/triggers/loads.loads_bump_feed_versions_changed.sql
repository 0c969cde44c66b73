-- The feed versions' bump for an update (triggers/loads.loads_bump_feed_versions.sql). An unchanged
-- update queues no event: the BEFORE trigger left the row as it was.
SELECT pg_temp.lock_without_queueing('loads');
DROP TRIGGER IF EXISTS loads_bump_feed_versions_changed ON loads;
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions_changed
  AFTER UPDATE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_changed;
