-- Up Migration

-- What a standby needs to serve a page exactly as the primary would (src/db/routing.ts): the customer's
-- feed version, read on the primary after its settled horizon. Every change to a customer's loads bumps
-- its feed version in the writing transaction, under the version row's lock (0004), so versions grow in
-- the order the customer's writers commit. A writer whose changes the horizon covers has committed
-- before the horizon was fixed (0006), so its bump is in the version read after it. A standby snapshot
-- that shows at least that version therefore holds every change the horizon covers, and the page read
-- from it equals the primary's; the page's statements read the version in their own snapshot
-- (src/loads/list.ts). The function is VOLATILE plpgsql, so its version query takes a snapshot of its own,
-- after the horizon's lock reading (one statement's snapshot would predate the horizon).
CREATE FUNCTION feed_settled_state(p_customer_id bigint, OUT settled_through timestamptz, OUT feed_version bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  settled_through := feed_settled_through(p_customer_id);
  SELECT v.version INTO feed_version FROM customer_feed_versions AS v WHERE v.customer_id = p_customer_id;
  feed_version := coalesce(feed_version, 0);
END
$$;

-- A request's work on the primary in one round trip: the key looked up by its hash (no row: a 401), its
-- use recorded at most once a `p_last_used_resolution`, the request counted against the key's rolling
-- window (count_rate_limited_request), and the customer's settled state (feed_settled_state below: the
-- horizon and the feed version read after it) — read last, so that it is fixed before the page's statement
-- takes its snapshot. One round trip instead of the three statements it replaces.
CREATE FUNCTION admit_request(
  p_key_hash bytea,
  p_default_limit integer,
  p_now timestamptz,
  p_window interval,
  p_last_used_resolution interval
)
RETURNS TABLE (
  key_id uuid,
  customer_id bigint,
  customer_code text,
  rate_limit integer,
  admitted boolean,
  counted integer,
  oldest timestamptz,
  admits_at timestamptz,
  settled_through timestamptz,
  feed_version bigint
)
LANGUAGE plpgsql AS $$
DECLARE
  last_used timestamptz;
BEGIN
  SELECT k.id, k.customer_id, c.code, k.rate_limit, k.last_used_at
    INTO key_id, customer_id, customer_code, rate_limit, last_used
    FROM api_keys AS k
    JOIN customers AS c ON c.id = k.customer_id
   WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF last_used IS NULL OR last_used <= p_now - p_last_used_resolution THEN
    -- The condition is repeated so that concurrent requests on several instances write once.
    UPDATE api_keys AS k SET last_used_at = p_now
     WHERE k.id = admit_request.key_id AND (k.last_used_at IS NULL OR k.last_used_at <= p_now - p_last_used_resolution);
  END IF;
  SELECT r.admitted, r.counted, r.oldest, r.admits_at
    INTO admitted, counted, oldest, admits_at
    FROM count_rate_limited_request(key_id, coalesce(rate_limit, p_default_limit), p_now, p_window) AS r;
  SELECT s.settled_through, s.feed_version INTO settled_through, feed_version FROM feed_settled_state(customer_id) AS s;
  RETURN NEXT;
END
$$;

-- Down Migration

DROP FUNCTION admit_request(bytea, integer, timestamptz, interval, interval);
DROP FUNCTION feed_settled_state(bigint);
