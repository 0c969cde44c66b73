-- Up Migration

-- The settled feed (DECISIONS.md, "Loads in the reference server").
--
-- A change is stamped with the time its row is written (clock_timestamp(), at millisecond precision),
-- not the start of its transaction, so a long transaction's change cannot surface carrying a stamp
-- older than rows clients have already read past.
--
-- A stamp is only safe to serve once no transaction still in flight can commit a change stamped at or
-- before it. So before a transaction stamps its first change to a customer's loads, it announces itself:
-- it takes a shared transaction-level advisory lock whose key holds the customer and that first stamp
-- (feed_writer_key). The lock lives in the lock manager's shared memory, where every session sees it at
-- once through pg_locks, whatever role wrote, committed or not; it goes away only after the transaction's
-- commit (or rollback) is visible to new snapshots. feed_settled_through(customer) reads the clock and
-- then the locks, and answers one millisecond before the earliest of: now, and the first stamp of every
-- writer of that customer still in flight. A reader that fixes this horizon first and then takes its
-- snapshot sees every change stamped at or before the horizon. Writers of other customers hold nothing
-- back. Advisory locks were chosen over pg_snapshot_xmin (one global horizon: a long writer of any
-- customer would hold back every feed) and over pg_stat_activity.xact_start (needs pg_read_all_stats, and
-- a writer's start is earlier than its first change to a customer, so the horizon would step back).

-- The advisory-lock key of a writer of `customer_id` whose first stamp is `stamp`: the customer in the top
-- 22 bits (customers past 4,194,303 share keys, which only ever holds a feed back longer), the stamp in
-- milliseconds since 2020-01-01 in the low 41 bits (until the year 2089).
CREATE FUNCTION feed_writer_key(customer_id bigint, stamp timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((customer_id % 4194304) << 41)
       | greatest(0, floor(extract(epoch FROM stamp - timestamptz '2020-01-01T00:00:00Z') * 1000))::bigint
$$;

-- Announces this transaction as a writer of the customer's loads before its first stamp (see above).
-- The customers it has announced are kept in a transaction-local setting, so later rows cost one lookup.
CREATE FUNCTION announce_feed_writer(customer_id bigint, first_stamp timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  announced text := coalesce(nullif(current_setting('loadfeed.announced_writers', true), ''), ',');
BEGIN
  IF position(',' || customer_id || ',' IN announced) = 0 THEN
    PERFORM pg_advisory_xact_lock_shared(feed_writer_key(customer_id, first_stamp));
    PERFORM set_config('loadfeed.announced_writers', announced || customer_id || ',', true);
  END IF;
END
$$;

-- The customer's settled horizon: every change to its loads stamped at or before the returned instant
-- is committed or rolled back. The clock is read before the locks, so a writer whose lock this misses
-- stamps after the clock reading, past the horizon.
CREATE FUNCTION feed_settled_through(p_customer_id bigint) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  now_ms timestamptz := date_trunc('milliseconds', clock_timestamp());
  oldest_writer timestamptz;
BEGIN
  SELECT timestamptz '2020-01-01T00:00:00Z' + min(((l.classid::bigint << 32) | l.objid::bigint) & 2199023255551) * interval '1 millisecond'
    INTO oldest_writer
    FROM pg_catalog.pg_locks AS l
   WHERE l.locktype = 'advisory'
     AND l.objsubid = 1
     AND l.database = (SELECT d.oid FROM pg_catalog.pg_database AS d WHERE d.datname = current_database())
     AND ((l.classid::bigint << 32) | l.objid::bigint) >> 41 = p_customer_id % 4194304;
  RETURN least(now_ms, oldest_writer) - interval '1 millisecond';
END
$$;

-- The updatedAt rule, now stamping at the row's write. An update that changes no value keeps its stamp
-- and announces nothing. A past stamp is taken as given only while seeding a customer no key can read
-- yet (loadfeed.backdating_customer names it, and it has no API key), so that no client can hold a
-- cursor past it; from any other writer it is replaced by the write time. A backdating writer announces
-- itself at the earliest stamp there is, holding the whole feed of that customer until it commits.
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  requested timestamptz := NEW.updated_at;
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.created_at := now();
  ELSE
    NEW.created_at := OLD.created_at;
  END IF;
  -- Nested, so that an ordinary writer never reads api_keys (it may hold no privilege on it).
  IF current_setting('loadfeed.backdating_customer', true) = NEW.customer_id::text
     AND requested IS NOT NULL
     AND (TG_OP = 'INSERT' OR requested IS DISTINCT FROM OLD.updated_at) THEN
    IF NOT EXISTS (SELECT 1 FROM api_keys AS k WHERE k.customer_id = NEW.customer_id) THEN
      PERFORM announce_feed_writer(NEW.customer_id, timestamptz '2020-01-01T00:00:00Z');
      NEW.updated_at := least(date_trunc('milliseconds', requested), date_trunc('milliseconds', clock_timestamp()));
      RETURN NEW;
    END IF;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    NEW.updated_at := OLD.updated_at;
    IF NEW IS NOT DISTINCT FROM OLD THEN
      RETURN NEW;
    END IF;
  END IF;
  PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;

-- The latest stamp each customer's loads carry, moved with the feed version in the writing transaction.
-- A totalCount kept at a feed version is exact for any horizon at or past it (src/loads/count-cache.ts).
ALTER TABLE customer_feed_versions ADD COLUMN latest_updated_at timestamptz NOT NULL DEFAULT '-infinity';

UPDATE customer_feed_versions AS v
   SET latest_updated_at = l.latest
  FROM (SELECT customer_id, max(updated_at) AS latest FROM loads GROUP BY customer_id) AS l
 WHERE l.customer_id = v.customer_id;

CREATE OR REPLACE FUNCTION bump_feed_versions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
  SELECT customer_id, 1, max(updated_at) FROM inserted_rows GROUP BY customer_id ORDER BY customer_id
  ON CONFLICT (customer_id) DO UPDATE
    SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION bump_feed_versions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
  SELECT customer_id, 1, max(updated_at)
    FROM (SELECT customer_id, updated_at FROM old_rows UNION ALL SELECT customer_id, updated_at FROM new_rows) AS touched
   GROUP BY customer_id ORDER BY customer_id
  ON CONFLICT (customer_id) DO UPDATE
    SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
  RETURN NULL;
END
$$;

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0006 is not reversible: restore the backup taken before the upgrade'; END $$;
