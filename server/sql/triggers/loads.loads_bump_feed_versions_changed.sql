-- The feed versions' bump for an update (triggers/loads.loads_bump_feed_versions.sql). An unchanged
-- update queues no event: the BEFORE trigger left the row as it was. A changed one queues an event when
-- it moves the load to another customer (the event bumps both), or else when the event queued last is of
-- another customer (feed_version_event_wanted). A CASE, not AND/OR: the function notes the event it
-- answers yes for, so it must run only where its answer decides.
SELECT pg_temp.lock_without_queueing('loads');
DROP TRIGGER IF EXISTS loads_bump_feed_versions_changed ON loads;
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions_changed
  AFTER UPDATE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (CASE
                       WHEN OLD.* IS NOT DISTINCT FROM NEW.* THEN false
                       WHEN OLD.customer_id IS DISTINCT FROM NEW.customer_id THEN true
                       ELSE feed_version_event_wanted(NEW.customer_id)
                     END) EXECUTE FUNCTION bump_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_changed;
