-- Up Migration

-- A counter per customer that moves with every write to the customer's loads, in the writing
-- transaction, whoever writes (the importer, an ETL, psql). A server may keep a totalCount it counted
-- while the counter read V and reuse it while the counter still reads V: any snapshot that sees V sees
-- exactly the loads the count saw, because each write bumps the counter under its row lock before it
-- commits. A write that changes no row (an upsert of unchanged values) bumps nothing. Customers are
-- bumped in id order, so that two writers touching several customers do not deadlock.
CREATE TABLE customer_feed_versions (
  customer_id bigint PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
  version bigint NOT NULL DEFAULT 0
);

CREATE FUNCTION bump_feed_versions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_feed_versions AS v (customer_id, version)
  SELECT DISTINCT customer_id, 1 FROM inserted_rows ORDER BY customer_id
  ON CONFLICT (customer_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;

CREATE FUNCTION bump_feed_versions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO customer_feed_versions AS v (customer_id, version)
  SELECT customer_id, 1 FROM old_rows UNION SELECT customer_id, 1 FROM new_rows ORDER BY 1
  ON CONFLICT (customer_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;

CREATE FUNCTION bump_feed_versions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE customer_feed_versions AS v SET version = v.version + 1
   WHERE v.customer_id IN (SELECT customer_id FROM deleted_rows);
  RETURN NULL;
END
$$;

CREATE FUNCTION bump_all_feed_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE customer_feed_versions SET version = version + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER loads_bump_feed_versions_inserted AFTER INSERT ON loads
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_feed_versions_inserted();
CREATE TRIGGER loads_bump_feed_versions_updated AFTER UPDATE ON loads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_feed_versions_updated();
CREATE TRIGGER loads_bump_feed_versions_deleted AFTER DELETE ON loads
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_feed_versions_deleted();
CREATE TRIGGER loads_bump_feed_versions_truncated AFTER TRUNCATE ON loads
  FOR EACH STATEMENT EXECUTE FUNCTION bump_all_feed_versions();

-- Down Migration

DROP TRIGGER loads_bump_feed_versions_truncated ON loads;
DROP TRIGGER loads_bump_feed_versions_deleted ON loads;
DROP TRIGGER loads_bump_feed_versions_updated ON loads;
DROP TRIGGER loads_bump_feed_versions_inserted ON loads;
DROP FUNCTION bump_all_feed_versions();
DROP FUNCTION bump_feed_versions_deleted();
DROP FUNCTION bump_feed_versions_updated();
DROP FUNCTION bump_feed_versions_inserted();
DROP TABLE customer_feed_versions;
