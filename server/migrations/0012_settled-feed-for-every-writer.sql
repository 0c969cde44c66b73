-- Up Migration

-- The settled feed of 0006, made to hold for every writer a real database has (server/README.md, "The
-- settled feed"): bounded lock use, writers in any session_replication_role (the logical replication
-- apply worker, pg_restore --disable-triggers, CDC sinks), and other applications' advisory locks.
--
-- The writer's key (bigint form of an advisory lock; pg_locks shows it as classid = its high 32 bits,
-- objid = its low 32 bits, objsubid = 1):
--   bits 63..54  the marker 421 (0b0110100101): a key without it is not the feed's;
--   bits 53..38  the customer's slot, customer id mod 65535; slot 65535 is a writer of every customer;
--   bits 37..0   the writer's first stamp in 8 ms units since 2020-01-01T00:00:00Z, rounded down (so a
--                decoded stamp is never later than the real one), until 2089-09.
-- Only the shared mode the feed takes counts: another application's exclusive locks never do.
-- Customers whose ids are equal mod 65535 share a slot: a writer of one then holds the other back too,
-- never less.

CREATE FUNCTION feed_writer_lock_key(slot integer, stamp timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (421::bigint << 54)
       | (slot::bigint << 38)
       | least(274877906943, greatest(0, floor(extract(epoch FROM stamp - timestamptz '2020-01-01T00:00:00Z') * 125)))::bigint
$$;

CREATE FUNCTION feed_writer_slot(customer_id bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (customer_id % 65535)::integer
$$;

CREATE OR REPLACE FUNCTION feed_writer_key(customer_id bigint, stamp timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT feed_writer_lock_key(feed_writer_slot(customer_id), stamp)
$$;

-- Announces this transaction as a writer of the customer's loads before it stamps its first change to
-- them (0006). For its first 16 customers a transaction takes one shared lock each, holding back only
-- those customers; at the 17th it takes one lock as a writer of every customer, at that moment's stamp,
-- and no more: 17 lock-table entries at most, whatever it writes (PostgreSQL's default
-- max_locks_per_transaction is 64). The customers it announced are kept in transaction-local settings
-- (at most 16 ids), so a row costs a short lookup whatever the transaction has written; a savepoint
-- rolled back forgets them together with its locks.
CREATE OR REPLACE FUNCTION announce_feed_writer(customer_id bigint, first_stamp timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  announced bigint[];
BEGIN
  IF current_setting('loadfeed.feed_writer_of_all', true) = 'yes' THEN
    RETURN;
  END IF;
  announced := coalesce(nullif(current_setting('loadfeed.feed_writer_customers', true), ''), '{}')::bigint[];
  IF customer_id = ANY (announced) THEN
    RETURN;
  END IF;
  IF cardinality(announced) >= 16 THEN
    PERFORM pg_advisory_xact_lock_shared(feed_writer_lock_key(65535, first_stamp));
    PERFORM set_config('loadfeed.feed_writer_of_all', 'yes', true);
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(feed_writer_key(customer_id, first_stamp));
  PERFORM set_config('loadfeed.feed_writer_customers', (announced || customer_id)::text, true);
END
$$;

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
CREATE FUNCTION feed_writers(now_ms timestamptz)
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

-- One reading of the feed's writers shared by every request for a few milliseconds while readings are
-- dear: reading pg_locks scans the whole lock table (3-4 ms with 5,000 locks of other applications held,
-- under 0.1 ms with a few), and a horizon fixed from an older reading is still safe: every writer it missed
-- stamps after its clock reading. The last reading's per-slot earliest stamps and what it cost; unlogged
-- (no WAL: it is read on the primary only, and a crash just empties it). Written and read through
-- feed_writers_reading(), as its owner.
CREATE UNLOGGED TABLE feed_writers_reading (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  read_at timestamptz NOT NULL,
  cost interval NOT NULL,
  slots integer[] NOT NULL,
  first_stamps timestamptz[] NOT NULL
);

-- A reading of the feed's writers. The last one is reused while it is at most 5 ms old and cost at least
-- 1 ms; a cheap one is read anew by each request (so a quiet database serves the freshest horizon). A
-- dear reading is stored for the others, by one request at a time: the others skip its row lock rather
-- than wait, and use the older reading meanwhile (if under a second old). A cheap one is stored once a
-- second, so that what readings cost stays known. SECURITY DEFINER so that the server's role needs no
-- privilege on the table (an instance of the previous release calls it too, through feed_settled_through).
CREATE FUNCTION feed_writers_reading() RETURNS feed_writers_reading
LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
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
  -- The clock first, then the locks (0006).
  started := clock_timestamp();
  reading.only_row := true;
  reading.read_at := date_trunc('milliseconds', started);
  SELECT coalesce(array_agg(w.slot ORDER BY w.slot), '{}'), coalesce(array_agg(w.first_stamp ORDER BY w.slot), '{}')
    INTO reading.slots, reading.first_stamps
    FROM (SELECT f.slot, min(f.first_stamp) AS first_stamp FROM feed_writers(reading.read_at) AS f GROUP BY f.slot) AS w;
  reading.cost := clock_timestamp() - started;
  IF last.read_at IS NULL THEN
    INSERT INTO feed_writers_reading VALUES (reading.*) ON CONFLICT (only_row) DO NOTHING;
  ELSIF locked OR reading.cost >= interval '1 millisecond' OR last.read_at < now_ms - interval '1 second' THEN
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

-- The customer's settled horizon (0006): one millisecond before the earliest of the reading's clock and
-- the first stamp of every writer of the customer or of every customer still in flight at the reading.
-- Slot 0 (the start-up probe's customer 0, src/db/settled-feed-check.ts) always reads pg_locks itself: the
-- probe asks right after announcing a writer, and must see it.
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

-- The updatedAt rule of 0010, now also announcing the customer a row leaves (an update that moves a load
-- to another customer, a delete), so that the feed-version bump at commit knows every customer written.
CREATE OR REPLACE FUNCTION loads_keep_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  requested timestamptz;
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    RETURN OLD;
  END IF;
  requested := NEW.updated_at;
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
    -- A BEFORE trigger sees the generated column as NULL (it is computed after): compare the rest.
    NEW.api_json := OLD.api_json;
    -- Decimals are served as the strings stored: 10.5 rewritten as 10.50 is equal, but not the same JSON.
    IF NEW IS NOT DISTINCT FROM OLD
       AND (NEW.miles::text, NEW.total_cost::text) IS NOT DISTINCT FROM (OLD.miles::text, OLD.total_cost::text) THEN
      RETURN NEW;
    END IF;
    IF NEW.customer_id IS DISTINCT FROM OLD.customer_id THEN
      PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    END IF;
  END IF;
  PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;

-- The feed versions (0004, 0006), now moved at commit by a deferred row trigger instead of statement
-- triggers: logical replication's apply worker fires row triggers but never statement triggers, so a
-- replicated change would otherwise leave the count cache and the standby check on an old version.
-- Lock order: a writer locks loads rows in its own order while it writes, and customer_feed_versions
-- rows only at commit, after its last write, in ascending customer id; so a writer never waits for a
-- version row while it can still wait for a load, and writers of one or many customers cannot deadlock
-- over version rows. One bump per customer and commit: the first event of the commit bumps every
-- customer the transaction announced (a writer of every customer bumps every customer), with a latest
-- stamp read after its last write (an upper bound of its stamps, all the count cache needs); the other
-- events find their customer and stamp covered and return. An event not covered (writes after a
-- `SET CONSTRAINTS ... IMMEDIATE` that fired earlier events) bumps again.
CREATE FUNCTION bump_feed_versions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bumped_through timestamptz := nullif(current_setting('loadfeed.feed_versions_bumped_through', true), '')::timestamptz;
  bumped bigint[] := coalesce(nullif(current_setting('loadfeed.feed_versions_bumped', true), ''), '{}')::bigint[];
  every_customer boolean := current_setting('loadfeed.feed_versions_bumped_all', true) = 'yes';
  latest timestamptz;
  customers bigint[];
BEGIN
  IF bumped_through IS NOT NULL
     AND (TG_OP = 'DELETE' OR NEW.updated_at <= bumped_through)
     AND (every_customer OR (
          (TG_OP = 'INSERT' OR OLD.customer_id = ANY (bumped))
          AND (TG_OP = 'DELETE' OR NEW.customer_id = ANY (bumped)))) THEN
    RETURN NULL;
  END IF;
  latest := date_trunc('milliseconds', clock_timestamp());
  IF current_setting('loadfeed.feed_writer_of_all', true) = 'yes' THEN
    INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
    SELECT c.id, 1, latest FROM customers AS c ORDER BY c.id
    ON CONFLICT (customer_id) DO UPDATE
      SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
    PERFORM set_config('loadfeed.feed_versions_bumped_all', 'yes', true);
  ELSE
    customers := coalesce(nullif(current_setting('loadfeed.feed_writer_customers', true), ''), '{}')::bigint[];
    IF TG_OP <> 'INSERT' THEN customers := customers || OLD.customer_id; END IF;
    IF TG_OP <> 'DELETE' THEN customers := customers || NEW.customer_id; END IF;
    INSERT INTO customer_feed_versions AS v (customer_id, version, latest_updated_at)
    SELECT DISTINCT c.id, 1, latest FROM unnest(customers) AS c(id) ORDER BY c.id
    ON CONFLICT (customer_id) DO UPDATE
      SET version = v.version + 1, latest_updated_at = greatest(v.latest_updated_at, excluded.latest_updated_at);
    PERFORM set_config('loadfeed.feed_versions_bumped', (SELECT array_agg(DISTINCT c) FROM unnest(customers) AS c)::text, true);
  END IF;
  PERFORM set_config('loadfeed.feed_versions_bumped_through', latest::text, true);
  RETURN NULL;
END
$$;

-- Dropping the statement triggers takes an ACCESS EXCLUSIVE lock on loads, which would queue every page
-- read behind a long writer the migration waits for; it is asked for 100 ms at a time instead, so pages
-- (of this release or the previous one) are served while the migration waits.
DO $$
BEGIN
  LOOP
    BEGIN
      SET LOCAL lock_timeout = '100ms';
      LOCK TABLE loads IN ACCESS EXCLUSIVE MODE;
      EXIT;
    EXCEPTION WHEN lock_not_available THEN
      PERFORM pg_sleep(0.2);
    END;
  END LOOP;
  SET LOCAL lock_timeout = 0;
END
$$;

DROP TRIGGER loads_bump_feed_versions_inserted ON loads;
DROP TRIGGER loads_bump_feed_versions_updated ON loads;
DROP TRIGGER loads_bump_feed_versions_deleted ON loads;
DROP FUNCTION bump_feed_versions_inserted();
DROP FUNCTION bump_feed_versions_updated();
DROP FUNCTION bump_feed_versions_deleted();

CREATE CONSTRAINT TRIGGER loads_bump_feed_versions
  AFTER INSERT OR DELETE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bump_feed_versions();
-- An unchanged update queues no event: the BEFORE trigger left the row as it was.
CREATE CONSTRAINT TRIGGER loads_bump_feed_versions_changed
  AFTER UPDATE ON loads
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION bump_feed_versions();

DROP TRIGGER loads_keep_updated_at ON loads;
CREATE TRIGGER loads_keep_updated_at
  BEFORE INSERT OR UPDATE OR DELETE ON loads
  FOR EACH ROW EXECUTE FUNCTION loads_keep_updated_at();

-- Logical replication's workers run with an empty search_path: the trigger functions carry their own,
-- the schema they and the feed's tables live in, so that what they call resolves in any session.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION loads_keep_updated_at() SET search_path = %I, pg_catalog', current_schema());
  EXECUTE format('ALTER FUNCTION bump_feed_versions() SET search_path = %I, pg_catalog', current_schema());
  EXECUTE format('ALTER FUNCTION feed_writers_reading() SET search_path = %I, pg_catalog', current_schema());
END
$$;

-- The same for the stored JSON column's function (0010), which PostgreSQL inlines into every write:
-- its body names its type and helper with their schema. The JSON it makes is unchanged.
DO $do$
BEGIN
  EXECUTE format($f$
CREATE OR REPLACE FUNCTION api_load_json(
  load_number text, po_number text, billing_ref_number text,
  origin_city text, origin_state text, origin_zip text, origin_warehouse text,
  destination_city text, destination_state text, destination_zip text, destination_warehouse text,
  status load_status,
  scheduled_pickup_date timestamptz, scheduled_pickup_time text,
  scheduled_delivery_date timestamptz, scheduled_delivery_time text,
  tendered_date timestamptz, actual_pickup_date timestamptz, actual_delivery_date timestamptz,
  requested_delivery_date timestamptz,
  miles numeric, total_cost numeric,
  updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $body$
  SELECT row_to_json(ROW(
    load_number, po_number, billing_ref_number,
    origin_city, origin_state, origin_zip, origin_warehouse,
    destination_city, destination_state, destination_zip, destination_warehouse,
    status,
    %1$I.api_timestamp(scheduled_pickup_date), scheduled_pickup_time,
    %1$I.api_timestamp(scheduled_delivery_date), scheduled_delivery_time,
    %1$I.api_timestamp(tendered_date), %1$I.api_timestamp(actual_pickup_date), %1$I.api_timestamp(actual_delivery_date),
    %1$I.api_timestamp(requested_delivery_date),
    miles::text, total_cost::text,
    %1$I.api_timestamp(updated_at)
  )::%1$I.api_load)::text
$body$ $f$, current_schema());
END
$do$;

-- Whatever the session_replication_role: the apply worker and `SET session_replication_role = replica`
-- skip triggers in the default (origin) mode. server/src/db/settled-feed-check.ts refuses to serve
-- unless these four are present and ALWAYS.
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_keep_updated_at;
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions;
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_changed;
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_bump_feed_versions_truncated;

-- Down Migration

-- Not reversed in place: today's functions and triggers are server/sql's (sql/README.md), and what this replaced is in git history.
DO $$ BEGIN RAISE EXCEPTION 'migration 0012 is not reversible: restore the backup taken before the upgrade'; END $$;
