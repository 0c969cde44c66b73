-- Up Migration

-- The rolling window runs on the database's clock, and each key's window is one row written at most once
-- a request (server/README.md, "The rate limit").
--
-- Before, each instance passed its own clock to admit_request, so two instances whose clocks disagreed by
-- more than the window each saw the other's hits as old: a key got twice its limit. And the window was a
-- table of one row per counted request, inserted and deleted on every request, which bloats under load.
--
-- Now the window is a row per key holding the stamps of the requests it counts, read from the database's
-- clock after the row is locked, so that concurrent requests from any instance are counted in the order
-- of their stamps. For limits up to 1,000 a minute every counted request keeps its own stamp (at the
-- millisecond), and the window is exact. Above that, requests are counted per whole second of the clock
-- (at most 61 buckets, whatever the limit): a bucket leaves the window when its last possible millisecond
-- does, so no rolling 60 s ever holds more than the limit, and a refusal or a header is late by under 1 s.

ALTER TABLE rate_limit_windows
  ADD COLUMN stamps timestamptz[] NOT NULL DEFAULT '{}',
  ADD COLUMN stamp_counts integer[];

COMMENT ON COLUMN rate_limit_windows.stamps IS
  'Counted requests still in the window, oldest first: each request''s stamp (stamp_counts NULL), or the start of each second that counted some (stamp_counts: how many)';

-- The requests counted so far stay counted: the hits become stamps (per-second buckets are made from them
-- on the key's next request when its limit is over 1,000).
UPDATE rate_limit_windows AS w
   SET stamps = h.stamps
  FROM (SELECT key_id, array_agg(date_trunc('milliseconds', at) ORDER BY at) AS stamps FROM rate_limit_hits GROUP BY key_id) AS h
 WHERE h.key_id = w.key_id;

-- Counts one request against a key's rolling window at the database's clock, and reports what the rate
-- headers need: whether it is admitted, how many requests the window counts (this one included when
-- admitted), when the oldest of them was made (`oldest`: it leaves the window `p_window` later) and, when
-- refused, when the request was made whose departure lets a request in (`admits_at`). `counted_at` is the clock
-- reading the request was counted at. A refused request writes nothing.
--
-- `p_at` is the seam of the tests that simulate the database's clock (test/rate-limit/): the servers
-- never pass it, and the window then reads clock_timestamp() once the key's row is locked.
CREATE FUNCTION rate_window_admit(
  p_key_id uuid,
  p_limit integer,
  p_window interval,
  p_at timestamptz DEFAULT NULL,
  OUT admitted boolean,
  OUT counted integer,
  OUT oldest timestamptz,
  OUT admits_at timestamptz,
  OUT counted_at timestamptz
)
LANGUAGE plpgsql AS $$
DECLARE
  exact boolean := p_limit <= 1000;
  -- How much later than its stamp a request of an entry may have been made.
  spread interval := CASE WHEN p_limit <= 1000 THEN interval '0' ELSE interval '999 milliseconds' END;
  window_stamps timestamptz[];
  window_counts integer[];
  entries integer;
  kept_from integer := 1;
  needed integer;
  bucket timestamptz;
BEGIN
  -- A lost count lets a key make a few more requests after a crash: not worth waiting for the flush (0005).
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT w.stamps, w.stamp_counts INTO window_stamps, window_counts FROM rate_limit_windows AS w WHERE w.key_id = p_key_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_limit_windows AS w (key_id) VALUES (p_key_id) ON CONFLICT (key_id) DO NOTHING;
    SELECT w.stamps, w.stamp_counts INTO window_stamps, window_counts FROM rate_limit_windows AS w WHERE w.key_id = p_key_id FOR NO KEY UPDATE;
  END IF;
  counted_at := date_trunc('milliseconds', coalesce(p_at, clock_timestamp()));

  -- A key whose limit crossed 1,000 since its last request: its window changes form, never counting less.
  IF exact AND window_counts IS NOT NULL THEN
    -- Each request of a bucket as made at the bucket's last millisecond; the latest `p_limit` are enough
    -- to decide and to say when a request will be admitted.
    window_stamps := ARRAY(
      SELECT s FROM (
        SELECT b.stamp + interval '999 milliseconds' AS s
          FROM unnest(window_stamps, window_counts) AS b(stamp, n), generate_series(1, least(b.n, p_limit))
         ORDER BY 1 DESC LIMIT p_limit
      ) AS latest ORDER BY s);
    window_counts := NULL;
  ELSIF NOT exact AND window_counts IS NULL THEN
    SELECT coalesce(array_agg(b.second ORDER BY b.second), '{}'), coalesce(array_agg(b.n ORDER BY b.second), '{}')
      INTO window_stamps, window_counts
      FROM (SELECT date_bin(interval '1 second', s, timestamptz '2000-01-01T00:00:00Z') AS second, count(*)::integer AS n
              FROM unnest(window_stamps) AS s GROUP BY 1) AS b;
  END IF;

  -- Entries that left the window: every request they count was made at or before `counted_at - p_window`.
  entries := coalesce(array_length(window_stamps, 1), 0);
  WHILE kept_from <= entries AND window_stamps[kept_from] + spread <= counted_at - p_window LOOP
    kept_from := kept_from + 1;
  END LOOP;
  IF exact THEN
    counted := entries - kept_from + 1;
  ELSE
    counted := 0;
    FOR i IN kept_from .. entries LOOP
      counted := counted + window_counts[i];
    END LOOP;
  END IF;

  admitted := counted < p_limit;
  IF admitted THEN
    IF exact THEN
      window_stamps := window_stamps[kept_from:entries] || counted_at;
    ELSE
      bucket := date_bin(interval '1 second', counted_at, timestamptz '2000-01-01T00:00:00Z');
      window_stamps := window_stamps[kept_from:entries];
      window_counts := window_counts[kept_from:entries];
      IF entries >= kept_from AND window_stamps[entries - kept_from + 1] = bucket THEN
        window_counts[entries - kept_from + 1] := window_counts[entries - kept_from + 1] + 1;
      ELSE
        window_stamps := window_stamps || bucket;
        window_counts := window_counts || 1;
      END IF;
    END IF;
    kept_from := 1;
    counted := counted + 1;
    UPDATE rate_limit_windows AS w SET stamps = window_stamps, stamp_counts = window_counts WHERE w.key_id = p_key_id;
  ELSE
    -- The earliest entry whose departure leaves fewer than `p_limit` counted.
    needed := counted - p_limit + 1;
    IF exact THEN
      admits_at := window_stamps[kept_from + needed - 1];
    ELSE
      FOR i IN kept_from .. entries LOOP
        needed := needed - window_counts[i];
        IF needed <= 0 THEN
          admits_at := window_stamps[i] + spread;
          EXIT;
        END IF;
      END LOOP;
    END IF;
  END IF;
  IF counted > 0 THEN
    oldest := window_stamps[kept_from] + spread;
  END IF;
END
$$;

-- A request's work on the primary in one round trip, as 0007's admit_request, with the rate window on the
-- database's clock (rate_window_admit): no instance's clock reaches it. `counted_at` is that clock's
-- reading, which the rate headers (and the response's Date) are computed from.
CREATE FUNCTION admit_request(
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
  IF last_used IS NULL OR last_used <= now() - p_last_used_resolution THEN
    -- The condition is repeated so that concurrent requests on several instances write once.
    UPDATE api_keys AS k SET last_used_at = now()
     WHERE k.id = admit_request.key_id AND (k.last_used_at IS NULL OR k.last_used_at <= now() - p_last_used_resolution);
  END IF;
  SELECT r.admitted, r.counted, r.oldest, r.admits_at, r.counted_at
    INTO admitted, counted, oldest, admits_at, counted_at
    FROM rate_window_admit(key_id, coalesce(rate_limit, p_default_limit), p_window) AS r;
  SELECT s.settled_through, s.feed_version INTO settled_through, feed_version FROM feed_settled_state(customer_id) AS s;
  RETURN NEXT;
END
$$;

-- The previous release's instances keep serving while and after this applies: their admit_request (0007)
-- calls this, which now counts in the same row on the database's clock, ignoring the instance's `p_now`.
CREATE OR REPLACE FUNCTION count_rate_limited_request(p_key_id uuid, p_limit integer, p_now timestamptz, p_window interval)
RETURNS TABLE (admitted boolean, counted integer, oldest timestamptz, admits_at timestamptz)
LANGUAGE sql AS $$
  SELECT r.admitted, r.counted, r.oldest, r.admits_at FROM rate_window_admit(p_key_id, p_limit, p_window) AS r
$$;

-- The old window's table and counter stay, unused and empty, until the next release drops them: a call of
-- the previous release's count_rate_limited_request that began before this commits runs its old body to
-- the end, against them (test/db/upgrade.test.ts). Their rows are the old window's, no longer counted.
TRUNCATE rate_limit_hits;
UPDATE rate_limit_windows SET counted = 0 WHERE counted <> 0;
COMMENT ON TABLE rate_limit_hits IS 'Unused since migration 0014 (the previous release''s window); dropped by the next release';
COMMENT ON COLUMN rate_limit_windows.counted IS 'Unused since migration 0014 (the previous release''s window); dropped by the next release';

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0014 is not reversible: restore the backup taken before the upgrade'; END $$;
