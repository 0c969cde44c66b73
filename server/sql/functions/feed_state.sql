-- The customer's feed version and latest stamp (bump_feed_versions), one row even for a customer with no loads
-- yet (version 0, no stamp). Read in the same snapshot as the rows: the count cache and the standby
-- check rest on it (src/loads/count-cache.ts, src/db/current-enough.ts). The latest stamp is NULL also where the
-- feed version row still holds the '-infinity' that migration 0006 gave rows of customers whose loads were all deleted
-- before it ran: node-postgres reads '-infinity' as a number, not a date, and such a customer's every
-- page was a 500 (test/loads/stampless-feed.test.ts).
CREATE OR REPLACE FUNCTION feed_state(p_customer_id bigint)
RETURNS TABLE (feed_version text, latest_updated_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT coalesce(max(v.version), 0)::text, nullif(max(v.latest_updated_at), '-infinity')
    FROM customer_feed_versions AS v
   WHERE v.customer_id = p_customer_id
$$;
