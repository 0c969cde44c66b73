
-- Counts one request against a key's rolling window at the database's clock, and reports what the rate
-- headers need: whether it is admitted, how many requests the window counts (this one included when
-- admitted), when the oldest of them was made (`oldest`: it leaves the window `p_window` later) and, when
-- refused, when the request was made whose departure lets a request in (`admits_at`). `counted_at` is the clock
-- reading the request was counted at. A refused request writes nothing.
--
-- `p_at` is the seam of the tests that simulate the database's clock (test/rate-limit/): the servers
-- never pass it, and the window then reads clock_timestamp() once the key's row is locked.
-- synchronous_commit is turned off by an assignment, which PL/pgSQL evaluates as a plain expression
-- rather than as a query (each query, even with its plan kept, sets up and tears down an executor).
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
