-- The query q without its status filter: what a walk of one status, or of one (day, status) bucket of a
-- date range, reads (src/loads/list-statements.ts), whose status the walk already fixes. Without it the
-- walk would carry `status = ANY (statuses)` as well, which PostgreSQL before 17 may take as the index's
-- condition and then read the status's loads unordered, sorting all of them for a page. IMMUTABLE with a
-- constant argument, so the planner computes it once, when the statement is planned, and reads each field
-- of the result as the constant it is, as for q itself.
CREATE OR REPLACE FUNCTION feed_query_any_status(q feed_query) RETURNS feed_query LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  q.statuses := NULL;
  RETURN q;
END
$$;
