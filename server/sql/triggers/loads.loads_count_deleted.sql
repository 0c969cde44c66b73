-- A statement's deleted loads leave their buckets (function count_deleted_feed_loads), in the default
-- mode; loads_count_deleted_replicated does it in replica mode.
CREATE OR REPLACE TRIGGER loads_count_deleted
  AFTER DELETE ON loads
  REFERENCING OLD TABLE AS deleted_loads
  FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_feed_loads();
ALTER TABLE loads ENABLE TRIGGER loads_count_deleted;
