// The importer's statements, as SQL (src/loads/import.ts runs them). The columns are written out, in the
// order of WRITABLE_LOAD_FIELDS (src/loads/columns.ts); test/loads/import-sql.test.ts holds every list
// here to that order, so that a field added to the contract and the table cannot be forgotten here.

/**
 * One batch of the import's rows, checked, with their line numbers: a table of the import's own
 * transaction, emptied (CLEAR_BATCH_SQL) once the batch is written. The date-times are staged as
 * milliseconds since 1970 (src/loads/copy-text.ts) and made timestamptz by the upsert (instantOf).
 */
export const STAGING_SQL = `
CREATE TEMPORARY TABLE import_staging (
  line bigint NOT NULL,
  load_number text NOT NULL, po_number text, billing_ref_number text,
  origin_city text, origin_state text, origin_zip text, origin_warehouse text,
  destination_city text, destination_state text, destination_zip text, destination_warehouse text,
  status load_status,
  scheduled_pickup_date bigint, scheduled_pickup_time text,
  scheduled_delivery_date bigint, scheduled_delivery_time text,
  tendered_date bigint, actual_pickup_date bigint, actual_delivery_date bigint,
  requested_delivery_date bigint,
  miles numeric, total_cost numeric
) ON COMMIT DROP`;

export const COPY_SQL = `
COPY import_staging (
  line,
  load_number, po_number, billing_ref_number,
  origin_city, origin_state, origin_zip, origin_warehouse,
  destination_city, destination_state, destination_zip, destination_warehouse,
  status,
  scheduled_pickup_date, scheduled_pickup_time,
  scheduled_delivery_date, scheduled_delivery_time,
  tendered_date, actual_pickup_date, actual_delivery_date,
  requested_delivery_date,
  miles, total_cost
) FROM STDIN`;

export const CLEAR_BATCH_SQL = `TRUNCATE import_staging`;

/**
 * The batch's loads the feed will not serve (DECISIONS.md, "Dates and the window"): those that pick up
 * before the window's start $1 (milliseconds since 1970, as staged), and those with no pickup date.
 */
export const NOT_SERVED_SQL = `
SELECT (count(*) FILTER (WHERE scheduled_pickup_date < $1::bigint))::int AS before_window,
       (count(*) FILTER (WHERE scheduled_pickup_date IS NULL))::int AS no_pickup_date
  FROM import_staging`;

/** Each line's loadNumber, gathered batch by batch: repeats are found over the whole input at its end. */
export const KEYS_SQL = `
CREATE TEMPORARY TABLE import_keys (
  line bigint NOT NULL,
  load_number text NOT NULL
) ON COMMIT DROP`;

export const KEEP_KEYS_SQL = `INSERT INTO import_keys (line, load_number) SELECT line, load_number FROM import_staging`;

/** Each later line of a loadNumber that appears more than once in the input, with the line it first appears on. */
export const REPEATED_SQL = `
SELECT k.line::int AS line, k.load_number, f.first_line::int AS first_line
  FROM import_keys AS k
  JOIN (SELECT load_number, min(line) AS first_line FROM import_keys GROUP BY load_number HAVING count(*) > 1) AS f
    ON f.load_number = k.load_number AND k.line > f.first_line
 ORDER BY k.line`;

/**
 * Every loadNumber of the import so far with the first line it appears on, for an import that skips bad
 * lines: a repeat is then dropped before its batch is written (the first line of a loadNumber is the one
 * imported), whichever batch the first line was in.
 */
export const SEEN_SQL = `
CREATE TEMPORARY TABLE import_seen (
  load_number text PRIMARY KEY,
  first_line bigint NOT NULL
) ON COMMIT DROP`;

/** The batch's loadNumbers not seen before, each with its first line in the batch. */
export const REMEMBER_SQL = `
INSERT INTO import_seen (load_number, first_line)
SELECT load_number, min(line) FROM import_staging GROUP BY load_number
    ON CONFLICT (load_number) DO NOTHING`;

/** Each line of the batch whose loadNumber appears on an earlier line, with the line it first appears on. */
export const BATCH_REPEATED_SQL = `
SELECT s.line::int AS line, s.load_number, f.first_line::int AS first_line
  FROM import_staging AS s
  JOIN import_seen AS f ON f.load_number = s.load_number AND s.line > f.first_line
 ORDER BY s.line`;

/** The batch's repeats, dropped before it is written. */
export const DROP_REPEATED_SQL = `
DELETE FROM import_staging AS s
 USING import_seen AS f
 WHERE f.load_number = s.load_number AND s.line > f.first_line`;

/**
 * A staged date-time, milliseconds since 1970-01-01T00:00:00Z, as the timestamptz it stands for, exactly
 * for every year 0001-9999: whole seconds through to_timestamp (a float8 holds each of them exactly) and
 * the milliseconds left as an interval (the division rounds toward zero and the remainder keeps the sign,
 * so instants before 1970 come out right too). PostgreSQL reads an integer from COPY text and makes this of
 * it in a fraction of the time it takes to read a timestamptz from text (~0.04 µs against ~0.2 µs a value:
 * ~80 ms of an import of 100,000 loads, on the core PostgreSQL is the bottleneck on). Written out here
 * rather than as a function of server/sql/, so the importer needs nothing its release's migrations add.
 */
const instantOf = (column: string): string => `to_timestamp(${column} / 1000) + (${column} % 1000) * interval '1 millisecond'`;

/**
 * Upserts the batch's rows for customer $1 by loadNumber, in line order (ids and stamps follow the input).
 * A row whose values are all as the API shows them already (decimals as the strings stored: 10.5 over
 * 10.50 is a change, as for the trigger, migrations/0010) is not written. Returns how many rows were
 * staged, inserted and written.
 */
export const UPSERT_SQL = `
WITH written AS (
  INSERT INTO loads AS l (
    customer_id,
    load_number, po_number, billing_ref_number,
    origin_city, origin_state, origin_zip, origin_warehouse,
    destination_city, destination_state, destination_zip, destination_warehouse,
    status,
    scheduled_pickup_date, scheduled_pickup_time,
    scheduled_delivery_date, scheduled_delivery_time,
    tendered_date, actual_pickup_date, actual_delivery_date,
    requested_delivery_date,
    miles, total_cost)
  SELECT $1::bigint,
         s.load_number, s.po_number, s.billing_ref_number,
         s.origin_city, s.origin_state, s.origin_zip, s.origin_warehouse,
         s.destination_city, s.destination_state, s.destination_zip, s.destination_warehouse,
         s.status,
         ${instantOf('s.scheduled_pickup_date')}, s.scheduled_pickup_time,
         ${instantOf('s.scheduled_delivery_date')}, s.scheduled_delivery_time,
         ${instantOf('s.tendered_date')}, ${instantOf('s.actual_pickup_date')}, ${instantOf('s.actual_delivery_date')},
         ${instantOf('s.requested_delivery_date')},
         s.miles, s.total_cost
    FROM import_staging AS s
   ORDER BY s.line
      ON CONFLICT (customer_id, load_number) DO UPDATE
     SET po_number = excluded.po_number, billing_ref_number = excluded.billing_ref_number,
         origin_city = excluded.origin_city, origin_state = excluded.origin_state,
         origin_zip = excluded.origin_zip, origin_warehouse = excluded.origin_warehouse,
         destination_city = excluded.destination_city, destination_state = excluded.destination_state,
         destination_zip = excluded.destination_zip, destination_warehouse = excluded.destination_warehouse,
         status = excluded.status,
         scheduled_pickup_date = excluded.scheduled_pickup_date, scheduled_pickup_time = excluded.scheduled_pickup_time,
         scheduled_delivery_date = excluded.scheduled_delivery_date, scheduled_delivery_time = excluded.scheduled_delivery_time,
         tendered_date = excluded.tendered_date, actual_pickup_date = excluded.actual_pickup_date,
         actual_delivery_date = excluded.actual_delivery_date,
         requested_delivery_date = excluded.requested_delivery_date,
         miles = excluded.miles, total_cost = excluded.total_cost
   WHERE (l.po_number, l.billing_ref_number,
          l.origin_city, l.origin_state, l.origin_zip, l.origin_warehouse,
          l.destination_city, l.destination_state, l.destination_zip, l.destination_warehouse,
          l.status,
          l.scheduled_pickup_date, l.scheduled_pickup_time,
          l.scheduled_delivery_date, l.scheduled_delivery_time,
          l.tendered_date, l.actual_pickup_date, l.actual_delivery_date,
          l.requested_delivery_date,
          l.miles::text, l.total_cost::text)
         IS DISTINCT FROM
         (excluded.po_number, excluded.billing_ref_number,
          excluded.origin_city, excluded.origin_state, excluded.origin_zip, excluded.origin_warehouse,
          excluded.destination_city, excluded.destination_state, excluded.destination_zip, excluded.destination_warehouse,
          excluded.status,
          excluded.scheduled_pickup_date, excluded.scheduled_pickup_time,
          excluded.scheduled_delivery_date, excluded.scheduled_delivery_time,
          excluded.tendered_date, excluded.actual_pickup_date, excluded.actual_delivery_date,
          excluded.requested_delivery_date,
          excluded.miles::text, excluded.total_cost::text)
  RETURNING (l.xmax = 0) AS inserted
)
SELECT (SELECT count(*) FROM import_staging)::int AS staged,
       (count(*) FILTER (WHERE written.inserted))::int AS inserted,
       count(*)::int AS written
  FROM written`;

/**
 * The first key of the advisory lock one customer's imports take turns with (the second: a hash of the
 * customer id). A lock with two int4 keys is apart from every bigint-keyed one (pg_locks.objsubid 2, not
 * 1), the settled feed's included, so holding it never holds a feed back. 0x4C464D49: "LFMI".
 */
export const IMPORT_LOCK_CLASS = 0x4c464d49;

export const TAKE_TURN_SQL = `SELECT pg_advisory_xact_lock($1::int, hashint8($2::bigint))`;

// An import is one statement of any length that may wait for the import before it: the bounds a role
// sets for the API's short statements (README: PgBouncer) do not fit it, so it lifts them for itself.
export const UNBOUNDED_SQL = `SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true)`;
