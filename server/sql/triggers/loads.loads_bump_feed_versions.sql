-- The feed versions move at commit (function bump_feed_versions), by a deferred row trigger: logical
-- replication's apply worker fires row triggers but never statement triggers. ALWAYS, as every trigger
-- on loads (triggers/loads.loads_keep_updated_at.sql). A constraint trigger cannot be replaced in place:
-- it is dropped and made again, under a lock of loads taken without queueing readers behind it.
SELECT pg_temp.lock_without_queueing('loads');
DROP TRIGGER IF EXISTS loads_bump_feed_versions ON loads;
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions
  AFTER INSERT OR DELETE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bump_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions;
