-- Up Migration
-- The last stored reading of the feed's writers is read by admit_request in its key lookup's own query
-- (server/sql/functions/admit_request.sql), as the server's role, rather than through a call of the
-- SECURITY DEFINER feed_writers_reading(), whose search_path is set and restored on every call
-- (server/README.md, Benchmark). Every role may read it: it holds what pg_catalog.pg_locks, readable by
-- every role, showed at one instant. Writing it stays with its owner, through feed_writers_reading().
GRANT SELECT ON feed_writers_reading TO PUBLIC;

-- Down Migration
REVOKE SELECT ON feed_writers_reading FROM PUBLIC;
