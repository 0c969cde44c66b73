-- The updatedAt rule on every write of a load (function loads_keep_updated_at). ALWAYS: whatever the
-- session_replication_role (logical replication's apply worker, `pg_restore --disable-triggers` and
-- `SET session_replication_role = replica` skip triggers in the default mode); src/db/settled-feed-check.ts
-- refuses to serve unless the feed's five triggers on loads are present and ALWAYS. CREATE OR REPLACE TRIGGER
-- takes a lock that holds back writers of loads, not readers.
CREATE OR REPLACE TRIGGER loads_keep_updated_at
  BEFORE INSERT OR UPDATE OR DELETE ON loads
  FOR EACH ROW EXECUTE FUNCTION loads_keep_updated_at();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at;
