#!/usr/bin/env node
// A scheduled sync of your loads into your own PostgreSQL. Run it from cron (or any scheduler): each run
// fetches only what changed since the last one.
//
// The table `loads` is keyed by load_number. The sync's cursor lives in `loadfeed_cursor` in the same
// database and is saved in the SAME transaction as the rows of the page it follows, on one connection:
// a crash at any moment leaves either the page and its cursor, or neither.
//
// Environment: LOADFEED_BASE_URL, LOADFEED_API_KEY, DATABASE_URL (your PostgreSQL).
import pg from 'pg';
import { createClient, syncLoads } from '@loadfeed/sdk';

const { LOADFEED_BASE_URL, LOADFEED_API_KEY, DATABASE_URL } = process.env;
if (!LOADFEED_BASE_URL || !LOADFEED_API_KEY || !DATABASE_URL) {
  console.error('set LOADFEED_BASE_URL, LOADFEED_API_KEY and DATABASE_URL');
  process.exit(2);
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS loads (
    load_number             text PRIMARY KEY,
    po_number               text,
    billing_ref_number      text,
    origin_city             text,
    origin_state            text,
    origin_zip              text,
    origin_warehouse        text,
    destination_city        text,
    destination_state       text,
    destination_zip         text,
    destination_warehouse   text,
    status                  text NOT NULL,
    scheduled_pickup_date   timestamptz,
    scheduled_pickup_time   text,
    scheduled_delivery_date timestamptz,
    scheduled_delivery_time text,
    tendered_date           timestamptz,
    actual_pickup_date      timestamptz,
    actual_delivery_date    timestamptz,
    requested_delivery_date timestamptz,
    miles                   numeric,
    total_cost              numeric,
    updated_at              timestamptz NOT NULL
  );
  CREATE TABLE IF NOT EXISTS loadfeed_cursor (
    feed   text PRIMARY KEY,
    cursor timestamptz NOT NULL
  );`;

// A whole page in one statement: the rows travel as one JSON array and jsonb_to_recordset turns the
// API's field names into typed columns.
const UPSERT_PAGE = `
  INSERT INTO loads (
    load_number, po_number, billing_ref_number,
    origin_city, origin_state, origin_zip, origin_warehouse,
    destination_city, destination_state, destination_zip, destination_warehouse,
    status, scheduled_pickup_date, scheduled_pickup_time, scheduled_delivery_date, scheduled_delivery_time,
    tendered_date, actual_pickup_date, actual_delivery_date, requested_delivery_date,
    miles, total_cost, updated_at)
  SELECT "loadNumber", "poNumber", "billingRefNumber",
         "originCity", "originState", "originZip", "originWarehouse",
         "destinationCity", "destinationState", "destinationZip", "destinationWarehouse",
         "status", "scheduledPickupDate", "scheduledPickupTime", "scheduledDeliveryDate", "scheduledDeliveryTime",
         "tenderedDate", "actualPickupDate", "actualDeliveryDate", "requestedDeliveryDate",
         "miles", "totalCost", "updatedAt"
    FROM jsonb_to_recordset($1::jsonb) AS page(
         "loadNumber" text, "poNumber" text, "billingRefNumber" text,
         "originCity" text, "originState" text, "originZip" text, "originWarehouse" text,
         "destinationCity" text, "destinationState" text, "destinationZip" text, "destinationWarehouse" text,
         "status" text, "scheduledPickupDate" timestamptz, "scheduledPickupTime" text,
         "scheduledDeliveryDate" timestamptz, "scheduledDeliveryTime" text,
         "tenderedDate" timestamptz, "actualPickupDate" timestamptz, "actualDeliveryDate" timestamptz,
         "requestedDeliveryDate" timestamptz, "miles" numeric, "totalCost" numeric, "updatedAt" timestamptz)
  ON CONFLICT (load_number) DO UPDATE SET
    po_number = excluded.po_number, billing_ref_number = excluded.billing_ref_number,
    origin_city = excluded.origin_city, origin_state = excluded.origin_state,
    origin_zip = excluded.origin_zip, origin_warehouse = excluded.origin_warehouse,
    destination_city = excluded.destination_city, destination_state = excluded.destination_state,
    destination_zip = excluded.destination_zip, destination_warehouse = excluded.destination_warehouse,
    status = excluded.status,
    scheduled_pickup_date = excluded.scheduled_pickup_date, scheduled_pickup_time = excluded.scheduled_pickup_time,
    scheduled_delivery_date = excluded.scheduled_delivery_date, scheduled_delivery_time = excluded.scheduled_delivery_time,
    tendered_date = excluded.tendered_date, actual_pickup_date = excluded.actual_pickup_date,
    actual_delivery_date = excluded.actual_delivery_date, requested_delivery_date = excluded.requested_delivery_date,
    miles = excluded.miles, total_cost = excluded.total_cost, updated_at = excluded.updated_at
  -- The overlap re-reads a few rows: never let an older copy replace a newer one.
  WHERE excluded.updated_at >= loads.updated_at`;

const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
await db.query(SCHEMA);

// One transaction per page on this one connection: the upsert opens it, saving the cursor commits it.
// (The sync saves the cursor only after `upsert` resolves; rows it hands over without a new cursor ride
// along with the next commit.)
let inTransaction = false;
async function begin() {
  if (inTransaction) return;
  await db.query('BEGIN');
  inTransaction = true;
}

/** @type {import('@loadfeed/sdk').CursorStore} */
const cursorStore = {
  async load() {
    const { rows } = await db.query(`SELECT cursor FROM loadfeed_cursor WHERE feed = 'loads'`);
    return rows[0]?.cursor.toISOString();
  },
  async save(cursor) {
    await begin();
    await db.query(
      `INSERT INTO loadfeed_cursor (feed, cursor) VALUES ('loads', $1::timestamptz)
       ON CONFLICT (feed) DO UPDATE SET cursor = excluded.cursor`,
      [cursor],
    );
    await db.query('COMMIT');
    inTransaction = false;
  },
};

const client = createClient({ baseUrl: LOADFEED_BASE_URL, apiKey: LOADFEED_API_KEY, userAgent: 'sync-to-postgres-example' });

try {
  const summary = await syncLoads({
    client,
    cursorStore,
    /** @param {import('@loadfeed/sdk').LoadRow[]} rows */
    async upsert(rows) {
      await begin();
      await db.query(UPSERT_PAGE, [JSON.stringify(rows)]);
    },
  });
  if (inTransaction) await db.query('COMMIT');
  console.log(`synced ${summary.rows} rows in ${summary.pages} pages; cursor ${summary.cursor ?? '(none yet)'}`);
} catch (error) {
  // Undo a page whose cursor was not saved; the next run reads it again.
  if (inTransaction) await db.query('ROLLBACK');
  console.error(`sync failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await db.end();
}
