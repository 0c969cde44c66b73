-- One reading of the feed's writers shared by every request for a few milliseconds while readings are
-- dear: reading pg_locks scans the whole lock table (3-4 ms with 5,000 locks of other applications held,
-- under 0.1 ms with a few), and a horizon fixed from an older reading is still safe: every writer it missed
-- stamps after its clock reading. The last reading's per-slot earliest stamps and what it cost; unlogged
-- (no WAL: it is read on the primary only, and a crash just empties it). Written through
-- feed_writers_reading(), as its owner; read there and by admit_request. The table itself is a versioned
-- migration's (0012).
-- A reading of the feed's writers. The last one is reused while it is at most 5 ms old and cost at least
-- 1 ms; a cheap one is read anew by each request (so a quiet database serves the freshest horizon). A
-- dear reading is stored for the others, by one request at a time: the others skip its row lock rather
-- than wait, and use the older reading meanwhile (if under a second old). A cheap one is stored when the
-- stored one is more than 5 ms old, the age up to which admit_request gives customers with no change
-- committed since the reading their horizon from it: so a busy server reads pg_locks about once every
-- 5 ms and stores at most 200 readings a second, and what readings cost stays known. SECURITY DEFINER so
-- that the server's role needs no privilege to write the table (an instance of the previous release
-- calls it too, through feed_settled_through); reading it needs none either (migration 0017 lets every
-- role read it, as every role may read the pg_locks it comes from).
CREATE OR REPLACE FUNCTION feed_writers_reading() RETURNS feed_writers_reading
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  now_ms timestamptz := date_trunc('milliseconds', clock_timestamp());
  last feed_writers_reading;
  reading feed_writers_reading;
  started timestamptz;
  locked boolean := false;
BEGIN
  SELECT * INTO last FROM feed_writers_reading;
  IF last.cost >= interval '1 millisecond' THEN
    IF last.read_at >= now_ms - interval '5 milliseconds' THEN
      RETURN last;
    END IF;
    PERFORM 1 FROM feed_writers_reading FOR UPDATE SKIP LOCKED;
    locked := FOUND;
    IF NOT locked AND last.read_at >= now_ms - interval '1 second' THEN
      RETURN last;
    END IF;
  END IF;
  -- The clock first, then the locks: a writer this misses stamps after the clock reading.
  started := clock_timestamp();
  reading.only_row := true;
  reading.read_at := date_trunc('milliseconds', started);
  SELECT coalesce(array_agg(w.slot ORDER BY w.slot), '{}'), coalesce(array_agg(w.first_stamp ORDER BY w.slot), '{}')
    INTO reading.slots, reading.first_stamps
    FROM (SELECT f.slot, min(f.first_stamp) AS first_stamp FROM feed_writers(reading.read_at) AS f GROUP BY f.slot) AS w;
  reading.cost := clock_timestamp() - started;
  IF last.read_at IS NULL THEN
    INSERT INTO feed_writers_reading VALUES (reading.*) ON CONFLICT (only_row) DO NOTHING;
  ELSIF locked OR reading.cost >= interval '1 millisecond' OR last.read_at < now_ms - interval '5 milliseconds' THEN
    IF NOT locked THEN
      PERFORM 1 FROM feed_writers_reading FOR UPDATE SKIP LOCKED;
      locked := FOUND;
    END IF;
    IF locked THEN
      UPDATE feed_writers_reading AS r
         SET read_at = reading.read_at, cost = reading.cost, slots = reading.slots, first_stamps = reading.first_stamps
       WHERE r.read_at < reading.read_at;
    END IF;
  END IF;
  RETURN reading;
END
$$;
