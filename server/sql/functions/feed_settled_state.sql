-- What a standby needs to serve a page exactly as the primary would (src/db/current-enough.ts): the customer's
-- feed version, read on the primary after its settled horizon. Every change to a customer's loads bumps
-- its feed version in the writing transaction, under the version row's lock (bump_feed_versions), so versions grow in
-- the order the customer's writers commit. A writer whose changes the horizon covers has committed
-- before the horizon was fixed (feed_settled_through), so its bump is in the version read after it. A standby snapshot
-- that shows at least that version therefore holds every change the horizon covers, and the page read
-- from it equals the primary's; the page's statements read the version in their own snapshot
-- (src/loads/list.ts). The function is VOLATILE plpgsql, so its version query takes a snapshot of its own,
-- after the horizon's lock reading (one statement's snapshot would predate the horizon).
CREATE OR REPLACE FUNCTION feed_settled_state(p_customer_id bigint, OUT settled_through timestamptz, OUT feed_version bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  settled_through := feed_settled_through(p_customer_id);
  SELECT v.version INTO feed_version FROM customer_feed_versions AS v WHERE v.customer_id = p_customer_id;
  feed_version := coalesce(feed_version, 0);
END
$$;
