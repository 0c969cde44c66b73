-- A TRUNCATE of loads empties the counts (function count_no_feed_loads). ALWAYS, as every trigger on loads.
CREATE OR REPLACE TRIGGER loads_count_truncated
  AFTER TRUNCATE ON loads
  FOR EACH STATEMENT EXECUTE FUNCTION count_no_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_truncated;
