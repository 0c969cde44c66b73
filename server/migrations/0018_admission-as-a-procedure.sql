-- Up Migration
-- This release's admission is the procedure admit_request (server/sql/functions/admit_request.sql), which
-- a request runs with CALL: no planner and no function scan for the statement every request makes. The
-- function of the same inputs it replaces was never released (the previous release's instances call the
-- overload with `p_now`, which stays); the procedure is made after this, with the repeatable definitions.
DROP FUNCTION IF EXISTS admit_request(bytea, integer, interval, interval);

-- Down Migration
-- The procedure is server/sql's; going down past this leaves its definition to the release gone back to.
DROP PROCEDURE IF EXISTS admit_request(bytea, integer, interval, interval, OUT uuid, OUT bigint, OUT text, OUT integer, OUT boolean, OUT integer, OUT timestamptz, OUT timestamptz, OUT timestamptz, OUT timestamptz, OUT bigint);
