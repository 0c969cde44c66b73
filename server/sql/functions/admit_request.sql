-- A request's work on the primary in one round trip: the key looked up by its hash (no row: a 401), its
-- use recorded at most once a `p_last_used_resolution`, the request counted against the key's rolling
-- window on the database's clock (rate_window_admit: no instance's clock reaches it), and the customer's
-- settled horizon and feed version, fixed before the page's statements take their snapshot. `counted_at`
-- is the database clock's reading, which the rate headers (and the response's Date) are computed from.
--
-- A procedure, called as `CALL admit_request($1, $2, $3, $4, NULL, ...)` with a NULL for each OUT
-- parameter (PostgreSQL asks for one; defaults would be read back from the catalog on every call): its
-- OUT parameters come back as the call's one row, all NULL for an unknown key. A CALL is executed without
-- the planner and without the function scan (and its tuplestore) that `SELECT * FROM` a function needs:
-- 15-20% less of the backend's CPU per admission (server/README.md, Benchmark), for the statement every
-- request runs. Nothing here commits: the CALL's transaction is the request's admission, as a SELECT's
-- was.
--
-- The horizon reuses the last stored reading of the feed's writers (the table feed_writers_reading, read
-- in the key lookup's own query) when that reading is at most 50 ms older than the request's clock, shows
-- no writer of the customer's slot nor of every customer, and every change of the customer committed at
-- that query's snapshot is stamped before the reading's clock less a millisecond
-- (customer_feed_versions.latest_updated_at, moved at each writer's commit to at least every stamp of
-- it: bump_feed_versions). The horizon is then the reading's clock less a millisecond, as it was for the
-- request that took the reading. It is safe: a writer the reading missed stamps after its clock reading.
-- And it serves the same rows as a fresh reading would: every change of the customer committed at the
-- snapshot is at or before it, and a change committed later was in flight at the snapshot, after the
-- reading (which showed no writer of the customer), so it is stamped after the reading's clock. Only
-- X-Feed-Settled-Through is older, by the reading's age (at most 50 ms). The version read in that
-- snapshot serves a standby as the one read after a fresh reading does: the snapshot is later than the
-- reading (committed before it), so it holds every change the horizon covers (feed_settled_state.sql).
-- Otherwise the horizon is fixed as before (feed_settled_through: a fresh reading, stored for the next
-- requests when the stored one is more than 5 ms old, or a dear one shared) and the version read after
-- it, in a snapshot of its own. Customers of slot 0 (the start-up probe's, src/db/settled-feed-check.ts)
-- always read afresh. The window is called as a plain expression rather than as a table in a FROM (no
-- function scan set up and torn down per call). The previous release's instances call the function
-- below, which answers as before.
CREATE OR REPLACE PROCEDURE admit_request(
  p_key_hash bytea,
  p_default_limit integer,
  p_window interval,
  p_last_used_resolution interval,
  OUT key_id uuid,
  OUT customer_id bigint,
  OUT customer_code text,
  OUT rate_limit integer,
  OUT admitted boolean,
  OUT counted integer,
  OUT oldest timestamptz,
  OUT admits_at timestamptz,
  OUT counted_at timestamptz,
  OUT settled_through timestamptz,
  OUT feed_version bigint
)
LANGUAGE plpgsql AS $$
DECLARE
  -- How old a stored reading of the feed's writers may be and still give the horizon: 50 ms, unless the
  -- setting loadfeed.reading_reused_for says otherwise (test/admission/ reuses readings for an hour, so
  -- that writes land between a reading and its reuse however slowly the test runs). A longer age makes
  -- only X-Feed-Settled-Through older: the page is the one a fresh reading would serve. A reading costs
  -- the backend 0.1-0.3 ms (pg_locks): at 5 ms a busy server took one every ~15 admissions, a tenth of
  -- the admission's CPU (server/README.md, Benchmark).
  reading_reused_for interval := coalesce(nullif(current_setting('loadfeed.reading_reused_for', true), '')::interval, interval '50 milliseconds');
  last_used timestamptz;
  latest_committed timestamptz;
  read_at timestamptz;
  reading_slots integer[];
  customer_slot integer;
  counting record;
BEGIN
  SELECT k.id, k.customer_id, c.code, k.rate_limit, k.last_used_at, v.version, v.latest_updated_at, r.read_at, r.slots
    INTO key_id, customer_id, customer_code, rate_limit, last_used, feed_version, latest_committed, read_at, reading_slots
    FROM api_keys AS k
    JOIN customers AS c ON c.id = k.customer_id
    LEFT JOIN customer_feed_versions AS v ON v.customer_id = k.customer_id
    LEFT JOIN feed_writers_reading AS r ON true
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

  customer_slot := feed_writer_slot(customer_id);
  IF customer_slot <> 0 AND read_at >= counted_at - reading_reused_for
     AND coalesce(latest_committed, '-infinity') < read_at - interval '1 millisecond'
     AND NOT (customer_slot = ANY (reading_slots) OR 65535 = ANY (reading_slots)) THEN
    settled_through := read_at - interval '1 millisecond';
    feed_version := coalesce(feed_version, 0);
    RETURN;
  END IF;
  settled_through := feed_settled_through(customer_id);
  SELECT v.version INTO feed_version FROM customer_feed_versions AS v WHERE v.customer_id = admit_request.customer_id;
  feed_version := coalesce(feed_version, 0);
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
