-- The advisory-lock key of a writer of `customer_id` whose first stamp is `stamp` (feed_writer_lock_key).
-- The previous releases' start-up probe calls it too (src/db/settled-feed-check.ts).
CREATE OR REPLACE FUNCTION feed_writer_key(customer_id bigint, stamp timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT feed_writer_lock_key(feed_writer_slot(customer_id), stamp)
$$;
