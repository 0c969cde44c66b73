-- The previous release's instances keep serving while and after this applies: their admit_request (the overload of admit_request.sql with `p_now`)
-- calls this, which now counts in the same row on the database's clock, ignoring the instance's `p_now`.
CREATE OR REPLACE FUNCTION count_rate_limited_request(p_key_id uuid, p_limit integer, p_now timestamptz, p_window interval)
RETURNS TABLE (admitted boolean, counted integer, oldest timestamptz, admits_at timestamptz)
LANGUAGE sql AS $$
  SELECT r.admitted, r.counted, r.oldest, r.admits_at FROM rate_window_admit(p_key_id, p_limit, p_window) AS r
$$;
