-- Up Migration

-- A request's admission at less database CPU (server/README.md, "This release: the peer's targets"), with
-- every guarantee it had: the same key lookup, the same rolling window on the database's clock, the same
-- settled horizon and feed version read after it. Only how PostgreSQL runs them changes: fewer queries
-- inside the functions (each PL/pgSQL query, even with its plan kept, sets up and tears down an executor;
-- a plain expression does not). Signatures stay, so the previous release's instances, whose admit_request
-- (0007) calls count_rate_limited_request → rate_window_admit and feed_settled_state → feed_settled_through,
-- keep serving while this applies and after it, with the same answers.

-- The rolling window of 0014, unchanged but for how synchronous_commit is turned off for the transaction.
CREATE OR REPLACE FUNCTION rate_window_admit(
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
LANGUAGE plpgsql VOLATILE AS $$
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
  sync_off text;
BEGIN
  -- A lost count lets a key make a few more requests after a crash: not worth waiting for the flush (0005).
  -- An assignment rather than PERFORM: PL/pgSQL evaluates it as a plain expression, not a query.
  sync_off := set_config('synchronous_commit', 'off', true);
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

-- The customer's settled horizon (0012), unchanged but when the reading holds no writer, the common case:
-- then the horizon is the reading's clock less a millisecond, without the query over its (empty) arrays.
CREATE OR REPLACE FUNCTION feed_settled_through(p_customer_id bigint) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  customer_slot integer := feed_writer_slot(p_customer_id);
  reading feed_writers_reading;
  oldest_writer timestamptz;
BEGIN
  IF customer_slot = 0 THEN
    reading.read_at := date_trunc('milliseconds', clock_timestamp());
    SELECT array_agg(f.slot), array_agg(f.first_stamp) INTO reading.slots, reading.first_stamps FROM feed_writers(reading.read_at) AS f;
  ELSE
    reading := feed_writers_reading();
  END IF;
  -- Most readings find no writer at all: then the horizon is the reading's clock, without a query.
  IF cardinality(reading.slots) > 0 THEN
    SELECT min(w.first_stamp) INTO oldest_writer
      FROM unnest(reading.slots, reading.first_stamps) AS w(slot, first_stamp)
     WHERE w.slot = customer_slot OR w.slot = 65535;
  END IF;
  RETURN least(reading.read_at, oldest_writer) - interval '1 millisecond';
END
$$;


-- The request's work on the primary in one round trip, as 0014's: the key, its last use, the rate window
-- on the database's clock, then the settled horizon and the feed version read after it. The window and the
-- horizon are called as plain expressions rather than as tables in a FROM (no function scan set up and
-- torn down per call), and the horizon's feed version is read here rather than through feed_settled_state:
-- this function is VOLATILE PL/pgSQL, so the version's query takes its own snapshot, after the horizon's
-- reading of pg_locks, exactly as feed_settled_state's did (0007).
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

-- Down Migration

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

CREATE OR REPLACE FUNCTION feed_settled_through(p_customer_id bigint) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  customer_slot integer := feed_writer_slot(p_customer_id);
  reading feed_writers_reading;
  oldest_writer timestamptz;
BEGIN
  IF customer_slot = 0 THEN
    reading.read_at := date_trunc('milliseconds', clock_timestamp());
    SELECT array_agg(f.slot), array_agg(f.first_stamp) INTO reading.slots, reading.first_stamps FROM feed_writers(reading.read_at) AS f;
  ELSE
    reading := feed_writers_reading();
  END IF;
  SELECT min(w.first_stamp) INTO oldest_writer
    FROM unnest(reading.slots, reading.first_stamps) AS w(slot, first_stamp)
   WHERE w.slot = customer_slot OR w.slot = 65535;
  RETURN least(reading.read_at, oldest_writer) - interval '1 millisecond';
END
$$;

CREATE OR REPLACE FUNCTION rate_window_admit(
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
