-- A TRUNCATE of loads moves every customer's feed version (function bump_all_feed_versions); ALWAYS, as
-- every trigger on loads (triggers/loads.loads_keep_updated_at.sql).
CREATE OR REPLACE TRIGGER loads_bump_feed_versions_truncated
  AFTER TRUNCATE ON loads
  FOR EACH STATEMENT EXECUTE FUNCTION bump_all_feed_versions();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_truncated;
