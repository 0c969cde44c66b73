-- A request's work on the primary in one round trip: the key looked up by its hash (no row: a 401), its
-- use recorded at most once a `p_last_used_resolution`, the request counted against the key's rolling
-- window on the database's clock (rate_window_admit: no instance's clock reaches it), and the customer's
-- settled state (feed_settled_state: the horizon and the feed version read after it) — read last, so that
-- it is fixed before the page's statement takes its snapshot. `counted_at` is the database clock's
-- reading, which the rate headers (and the response's Date) are computed from.
-- The window and the horizon are called as plain expressions rather than as tables in a FROM (no function
-- scan set up and torn down per call), and the horizon's feed version is read here rather than through
-- feed_settled_state: this function is VOLATILE PL/pgSQL, so the version's query takes its own snapshot,
-- after the horizon's reading of pg_locks, exactly as feed_settled_state's did. The previous release's
-- instances call the same signatures and get the same answers.
CREATE OR REPLACE FUNCTION admit_request(
  p_key_hash bytea,
  p_default_limit integer,
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
  counted_at timestamptz,
  settled_through timestamptz,
  feed_version bigint
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  last_used timestamptz;
  counting record;
BEGIN
  SELECT k.id, k.customer_id, c.code, k.rate_limit, k.last_used_at
    INTO key_id, customer_id, customer_code, rate_limit, last_used
    FROM api_keys AS k
    JOIN customers AS c ON c.id = k.customer_id
   WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF last_used IS NULL OR last_used <= now() - p_last_used_resolution THEN
    -- The condition is repeated so that concurrent requests on several instances write once.
    UPDATE api_keys AS k SET last_used_at = now()
     WHERE k.id = admit_request.key_id AND (k.last_used_at IS NULL OR k.last_used_at <= now() - p_last_used_resolution);
  END IF;
  counting := rate_window_admit(key_id, coalesce(rate_limit, p_default_limit), p_window);
  admitted := counting.admitted;
  counted := counting.counted;
  oldest := counting.oldest;
  admits_at := counting.admits_at;
  counted_at := counting.counted_at;
  settled_through := feed_settled_through(customer_id);
  SELECT v.version INTO feed_version FROM customer_feed_versions AS v WHERE v.customer_id = admit_request.customer_id;
  feed_version := coalesce(feed_version, 0);
  RETURN NEXT;
END
$$;

-- The previous release's admit_request (it passed its own clock as `p_now`, now used only for
-- last_used_at), kept while instances of that release may still serve (server/README.md, upgrading).
CREATE OR REPLACE FUNCTION admit_request(
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
