-- A TRUNCATE of loads moves every customer's feed version (trigger loads_bump_feed_versions_truncated).
CREATE OR REPLACE FUNCTION bump_all_feed_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE customer_feed_versions SET version = version + 1;
  RETURN NULL;
END
$$;
