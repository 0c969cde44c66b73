-- The feed versions move at commit (function bump_feed_versions), by a deferred row trigger: logical
-- replication's apply worker fires row triggers but never statement triggers. ALWAYS, as every trigger
-- on loads (triggers/loads.loads_keep_updated_at.sql). A constraint trigger cannot be replaced in place:
-- it is dropped and made again, under a lock of loads taken without queueing readers behind it. An
-- insert queues an event only when the event queued last is of another customer
-- (feed_version_event_wanted); deletes and updates have triggers of their own, as a WHEN reads NEW or
-- OLD, not both.
SELECT pg_temp.lock_without_queueing('loads');
DROP TRIGGER IF EXISTS loads_bump_feed_versions ON loads;
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions
  AFTER INSERT ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (feed_version_event_wanted(NEW.customer_id)) EXECUTE FUNCTION bump_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions;
