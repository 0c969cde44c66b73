-- The feed's writers as pg_locks shows them now: the holder's pid (NULL for a prepared transaction), the
-- customer slot (65535: every customer) and the first stamp. A key that is not a writer's is ignored:
-- held by a session with no transaction open (pg_locks shows every open transaction's virtualxid, to
-- every role: the feed's locks are transaction locks, so this is another application's session lock);
-- decoding to an impossible stamp, later than `now_ms` (a writer stamps its key before taking it) or,
-- where the reader may see the holder's session (the server's own role, or one granted
-- pg_read_all_stats), earlier than the holder's transaction start — except the feed's earliest stamp,
-- 2020-01-01, which a backdating seed announces, and slot 0, whose customer 0 no customer has: the
-- server's start-up probe announces it an hour back (src/db/settled-feed-check.ts, this release's and the
-- previous one's). pg_locks is read once.
CREATE OR REPLACE FUNCTION feed_writers(now_ms timestamptz)
RETURNS TABLE (pid integer, slot integer, first_stamp timestamptz, transaction_start timestamptz)
LANGUAGE sql STABLE AS $$
  WITH locks AS MATERIALIZED (
    SELECT l.locktype, l.pid, l.classid, l.objid
      FROM pg_catalog.pg_locks AS l
     WHERE (l.locktype = 'advisory'
            AND l.objsubid = 1
            AND l.mode = 'ShareLock'
            AND l.classid::bigint >> 22 = 421
            AND l.database = (SELECT d.oid FROM pg_catalog.pg_database AS d WHERE d.datname = current_database()))
        OR l.locktype = 'virtualxid'
  ), writers AS (
    SELECT l.pid,
           ((l.classid::bigint >> 6) & 65535)::integer AS slot,
           timestamptz '2020-01-01T00:00:00Z'
             + (((l.classid::bigint & 63) << 32) | l.objid::bigint) * interval '8 milliseconds' AS first_stamp
      FROM locks AS l
     WHERE l.locktype = 'advisory'
       AND (l.pid IS NULL OR EXISTS (SELECT 1 FROM locks AS t WHERE t.locktype = 'virtualxid' AND t.pid = l.pid))
  )
  SELECT w.pid, w.slot, w.first_stamp, a.xact_start
    FROM writers AS w
    LEFT JOIN LATERAL (
         SELECT s.xact_start, s.query IS DISTINCT FROM '<insufficient privilege>' AS visible
           FROM pg_catalog.pg_stat_get_activity(w.pid) AS s) AS a ON w.pid IS NOT NULL
   WHERE w.first_stamp <= now_ms
     AND (a.visible IS NOT TRUE
          OR w.first_stamp = timestamptz '2020-01-01T00:00:00Z'
          OR w.slot = 0
          OR w.first_stamp > a.xact_start - interval '1 second')
$$;
