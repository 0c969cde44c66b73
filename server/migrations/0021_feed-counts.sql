-- Up Migration
-- Counts of each customer's loads by status and UTC pickup day, kept by the loads' row triggers, so that a
-- totalCount over the window, statuses and whole pickup days adds up a few thousand counters instead of
-- counting the customer's rows (sql/functions/feed_count.sql). A writer appends its changes, +1 and -1 a
-- bucket (feed_count_changes), in its own transaction, so a snapshot sees the changes of exactly the loads
-- it sees, and no two writers ever wait for one row; the server folds the changes into feed_counts
-- (sql/functions/fold_feed_counts.sql). Logged: standbys serve the counts.
CREATE TABLE feed_counts (
  customer_id bigint NOT NULL,
  pickup_day date NOT NULL,
  status load_status NOT NULL,
  loads bigint NOT NULL,
  PRIMARY KEY (customer_id, pickup_day, status) INCLUDE (loads)
);
CREATE TABLE feed_count_changes (
  customer_id bigint NOT NULL,
  pickup_day date NOT NULL,
  status load_status NOT NULL,
  loads bigint NOT NULL
);
CREATE INDEX feed_count_changes_bucket ON feed_count_changes (customer_id, pickup_day, status) INCLUDE (loads);

-- The triggers and their functions (today's definitions: sql/functions/count_*.sql,
-- sql/triggers/loads.loads_count_*.sql), made here so that the counts taken below and every write after
-- them are one: writers of loads wait for this transaction (the lock), and the writers that were under way
-- when it began have committed before the count reads loads.
LOCK TABLE loads IN SHARE ROW EXCLUSIVE MODE;

CREATE FUNCTION count_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.scheduled_pickup_date IS NOT NULL THEN
    INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
    VALUES (OLD.customer_id, (OLD.scheduled_pickup_date AT TIME ZONE 'UTC')::date, OLD.status, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.scheduled_pickup_date IS NOT NULL THEN
    INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
    VALUES (NEW.customer_id, (NEW.scheduled_pickup_date AT TIME ZONE 'UTC')::date, NEW.status, 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_inserted_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
  SELECT l.customer_id, (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date, l.status, count(*)
    FROM inserted_loads AS l
   WHERE l.scheduled_pickup_date IS NOT NULL
   GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_deleted_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO feed_count_changes (customer_id, pickup_day, status, loads)
  SELECT l.customer_id, (l.scheduled_pickup_date AT TIME ZONE 'UTC')::date, l.status, -count(*)
    FROM deleted_loads AS l
   WHERE l.scheduled_pickup_date IS NOT NULL
   GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_no_feed_loads() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM feed_count_changes;
  DELETE FROM feed_counts;
  RETURN NULL;
END
$$;

CREATE TRIGGER loads_count_inserted AFTER INSERT ON loads
  REFERENCING NEW TABLE AS inserted_loads FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_feed_loads();
CREATE TRIGGER loads_count_inserted_replicated AFTER INSERT ON loads
  FOR EACH ROW WHEN (NEW.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_inserted_replicated;
CREATE TRIGGER loads_count_changed AFTER UPDATE ON loads
  FOR EACH ROW WHEN (OLD.customer_id IS DISTINCT FROM NEW.customer_id
                     OR OLD.status IS DISTINCT FROM NEW.status
                     OR (OLD.scheduled_pickup_date AT TIME ZONE 'UTC')::date IS DISTINCT FROM (NEW.scheduled_pickup_date AT TIME ZONE 'UTC')::date)
  EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_changed;
CREATE TRIGGER loads_count_deleted AFTER DELETE ON loads
  REFERENCING OLD TABLE AS deleted_loads FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_feed_loads();
CREATE TRIGGER loads_count_deleted_replicated AFTER DELETE ON loads
  FOR EACH ROW WHEN (OLD.scheduled_pickup_date IS NOT NULL) EXECUTE FUNCTION count_feed_loads();
ALTER TABLE loads ENABLE REPLICA TRIGGER loads_count_deleted_replicated;
CREATE TRIGGER loads_count_truncated AFTER TRUNCATE ON loads
  FOR EACH STATEMENT EXECUTE FUNCTION count_no_feed_loads();
ALTER TABLE loads ENABLE ALWAYS TRIGGER loads_count_truncated;

INSERT INTO feed_counts (customer_id, pickup_day, status, loads)
SELECT customer_id, (scheduled_pickup_date AT TIME ZONE 'UTC')::date, status, count(*)
  FROM loads
 WHERE scheduled_pickup_date IS NOT NULL
 GROUP BY 1, 2, 3;

-- Down Migration
DROP TRIGGER IF EXISTS loads_count_truncated ON loads;
DROP TRIGGER IF EXISTS loads_count_deleted_replicated ON loads;
DROP TRIGGER IF EXISTS loads_count_deleted ON loads;
DROP TRIGGER IF EXISTS loads_count_changed ON loads;
DROP TRIGGER IF EXISTS loads_count_inserted_replicated ON loads;
DROP TRIGGER IF EXISTS loads_count_inserted ON loads;
DROP FUNCTION IF EXISTS recount_feed_loads();
DROP FUNCTION IF EXISTS fold_feed_counts();
DROP FUNCTION IF EXISTS feed_count(feed_query);
DROP FUNCTION IF EXISTS count_no_feed_loads();
DROP FUNCTION IF EXISTS count_deleted_feed_loads();
DROP FUNCTION IF EXISTS count_inserted_feed_loads();
DROP FUNCTION IF EXISTS count_feed_loads();
DROP TABLE IF EXISTS feed_count_changes;
DROP TABLE IF EXISTS feed_counts;
