-- Up Migration

-- The rolling window of each key, kept in PostgreSQL so that every server instance shares one count.
-- `counted` is the number of rows in rate_limit_hits for the key, maintained with them so that a
-- request costs the same whatever the key's limit is.
CREATE TABLE rate_limit_windows (
  key_id uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  counted integer NOT NULL DEFAULT 0 CHECK (counted >= 0)
);

-- One row per counted request still inside a window (older ones are pruned by the key's next request).
CREATE TABLE rate_limit_hits (
  key_id uuid NOT NULL REFERENCES rate_limit_windows (key_id) ON DELETE CASCADE,
  at timestamptz NOT NULL
);

CREATE INDEX rate_limit_hits_key_at ON rate_limit_hits (key_id, at);

-- Counts one request against a key: prunes the hits that left the window, admits the request when
-- fewer than `p_limit` remain, and reports what the rate headers need. The key's window row is locked
-- for the call, so concurrent requests for one key (from any instance) are counted one after another.
-- `admits_at` is when the hit whose departure lets a request in leaves the window (only when refused).
CREATE FUNCTION count_rate_limited_request(p_key_id uuid, p_limit integer, p_now timestamptz, p_window interval)
RETURNS TABLE (admitted boolean, counted integer, oldest timestamptz, admits_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  expired integer;
BEGIN
  INSERT INTO rate_limit_windows AS w (key_id) VALUES (p_key_id) ON CONFLICT (key_id) DO NOTHING;
  SELECT w.counted INTO counted FROM rate_limit_windows AS w WHERE w.key_id = p_key_id FOR UPDATE;
  DELETE FROM rate_limit_hits AS h WHERE h.key_id = p_key_id AND h.at <= p_now - p_window;
  GET DIAGNOSTICS expired = ROW_COUNT;
  counted := counted - expired;
  admitted := counted < p_limit;
  IF admitted THEN
    INSERT INTO rate_limit_hits (key_id, at) VALUES (p_key_id, p_now);
    counted := counted + 1;
  ELSE
    SELECT h.at INTO admits_at FROM rate_limit_hits AS h WHERE h.key_id = p_key_id
      ORDER BY h.at OFFSET counted - p_limit LIMIT 1;
  END IF;
  IF admitted OR expired > 0 THEN
    UPDATE rate_limit_windows AS w SET counted = count_rate_limited_request.counted WHERE w.key_id = p_key_id;
  END IF;
  SELECT min(h.at) INTO oldest FROM rate_limit_hits AS h WHERE h.key_id = p_key_id;
  RETURN NEXT;
END
$$;

-- Down Migration

DROP FUNCTION count_rate_limited_request(uuid, integer, timestamptz, interval);
DROP TABLE rate_limit_hits;
DROP TABLE rate_limit_windows;
