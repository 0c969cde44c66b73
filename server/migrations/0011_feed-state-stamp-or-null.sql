-- Up Migration

-- feed_state's latest stamp is NULL for a customer with no stamp, as 0009 says, also where the feed
-- version row still holds the '-infinity' that 0006 gave rows of customers whose loads were all deleted
-- before it ran: node-postgres reads '-infinity' as a number, not a date, and such a customer's every
-- page was a 500 (test/loads/stampless-feed.test.ts).
CREATE OR REPLACE FUNCTION feed_state(p_customer_id bigint)
RETURNS TABLE (feed_version text, latest_updated_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT coalesce(max(v.version), 0)::text, nullif(max(v.latest_updated_at), '-infinity')
    FROM customer_feed_versions AS v
   WHERE v.customer_id = p_customer_id
$$;

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0011 is not reversible: restore the backup taken before the upgrade'; END $$;
