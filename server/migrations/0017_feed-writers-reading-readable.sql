-- Up Migration
-- The last stored reading of the feed's writers is read by admit_request in its key lookup's own query
-- (server/sql/functions/admit_request.sql), as the server's role, rather than through the SECURITY DEFINER
-- feed_writers_reading() with its search_path set and restored on every call (about a third of that
-- function's cost). Every role may read it: it holds what pg_catalog.pg_locks, readable by every role,
-- showed at one instant. Writing it stays with its owner, through feed_writers_reading().
GRANT SELECT ON feed_writers_reading TO PUBLIC;

-- Down Migration
REVOKE SELECT ON feed_writers_reading FROM PUBLIC;
