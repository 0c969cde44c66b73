-- A TRUNCATE of loads leaves no load to count (trigger loads_count_truncated). Deleted, not truncated:
-- a delete holds back no reader of the counts.
CREATE OR REPLACE FUNCTION count_no_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM feed_count_changes;
  DELETE FROM feed_counts;
  RETURN NULL;
END
$$;
