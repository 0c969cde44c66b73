-- A statement's new loads are counted in their buckets (function count_inserted_feed_loads), in the
-- default mode (ENABLE, not ALWAYS): in replica mode, where statement triggers never fire in the apply
-- worker, loads_count_inserted_replicated counts them row by row, so exactly one of the two fires in
-- any session. src/db/settled-feed-check.ts refuses to serve unless both are in these modes.
CREATE OR REPLACE TRIGGER loads_count_inserted
  AFTER INSERT ON loads
  REFERENCING NEW TABLE AS inserted_loads
  FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_feed_loads();
ALTER TABLE loads ENABLE TRIGGER loads_count_inserted;
