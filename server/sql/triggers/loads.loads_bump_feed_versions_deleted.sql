-- The feed versions' bump for a delete (triggers/loads.loads_bump_feed_versions.sql): an event only when
-- the event queued last is of another customer.
SELECT pg_temp.lock_without_queueing('loads');
DROP TRIGGER IF EXISTS loads_bump_feed_versions_deleted ON loads;
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions_deleted
  AFTER DELETE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (feed_version_event_wanted(OLD.customer_id)) EXECUTE FUNCTION bump_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_deleted;
