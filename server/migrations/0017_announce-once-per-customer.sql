-- Up Migration

-- The updatedAt trigger (0012, 0015) announced the row's customer as a writer for every row it stamped:
-- a call of announce_feed_writer, which reads two settings and an array of ids, cost about 4-5 µs a row
-- (an INSERT ... SELECT of 100,000 rows into loads: ~0.45 s of its ~2.3 s of backend CPU). The trigger now remembers the customer it announced last in a transaction-local setting and
-- asks again only for another customer. The setting is set right after the announcement, in the same
-- (sub)transaction, so a savepoint rolled back forgets both together with the lock; nothing else of the
-- trigger changes. CREATE OR REPLACE resets the function's settings, so its search_path (0012: logical
-- replication's workers run with an empty one) is set again. A transaction that ran the previous body
-- before this applied has not set the new setting, so its next row asks announce_feed_writer, which
-- knows it announced.

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
    -- Decimals are served as the strings stored: 10.5 rewritten as 10.50 is equal, but not the same JSON.
    IF NEW IS NOT DISTINCT FROM OLD
       AND (NEW.miles::text, NEW.total_cost::text) IS NOT DISTINCT FROM (OLD.miles::text, OLD.total_cost::text) THEN
      RETURN NEW;
    END IF;
    IF NEW.customer_id IS DISTINCT FROM OLD.customer_id THEN
      PERFORM announce_feed_writer(OLD.customer_id, date_trunc('milliseconds', clock_timestamp()));
    END IF;
  END IF;
  -- The customer this transaction announced last, read from a setting of its own: a bulk write of one
  -- customer's rows asks announce_feed_writer once, not once a row.
  IF current_setting('loadfeed.feed_writer_announced', true) IS DISTINCT FROM NEW.customer_id::text THEN
    PERFORM announce_feed_writer(NEW.customer_id, date_trunc('milliseconds', clock_timestamp()));
    PERFORM set_config('loadfeed.feed_writer_announced', NEW.customer_id::text, true);
  END IF;
  NEW.updated_at := date_trunc('milliseconds', clock_timestamp());
  RETURN NEW;
END
$$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION loads_keep_updated_at() SET search_path = %I, pg_catalog', current_schema());
END
$$;

-- Down Migration

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

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION loads_keep_updated_at() SET search_path = %I, pg_catalog', current_schema());
END
$$;
