#!/usr/bin/env node
// A scheduled sync of your loads into SQLite. Run it from cron (or any scheduler) as often as you like:
// each run fetches only what changed since the last one.
//
// The table `loads` is keyed by load_number. The sync's cursor lives in the same database, in
// `loadfeed_cursor`, and is saved in the SAME transaction as the rows of the page it follows: a crash at
// any moment leaves either the page and its cursor, or neither, never a cursor ahead of its rows.
//
// Environment: LOADFEED_BASE_URL, LOADFEED_API_KEY, SQLITE_PATH (default loads.db).
import Database from 'better-sqlite3';
import { createClient, syncLoads } from '@loadfeed/sdk';

const { LOADFEED_BASE_URL, LOADFEED_API_KEY, SQLITE_PATH = 'loads.db' } = process.env;
if (!LOADFEED_BASE_URL || !LOADFEED_API_KEY) {
  console.error('set LOADFEED_BASE_URL and LOADFEED_API_KEY');
  process.exit(2);
}

const db = new Database(SQLITE_PATH);
db.pragma('journal_mode = WAL'); // readers are not blocked while a sync writes

// Dates stay as the API sends them (ISO 8601, UTC, milliseconds), which sort correctly as text;
// miles and total_cost stay decimal strings, so no amount is rounded.
db.exec(`
  CREATE TABLE IF NOT EXISTS loads (
    load_number             TEXT PRIMARY KEY,
    po_number               TEXT,
    billing_ref_number      TEXT,
    origin_city             TEXT,
    origin_state            TEXT,
    origin_zip              TEXT,
    origin_warehouse        TEXT,
    destination_city        TEXT,
    destination_state       TEXT,
    destination_zip         TEXT,
    destination_warehouse   TEXT,
    status                  TEXT NOT NULL,
    scheduled_pickup_date   TEXT,
    scheduled_pickup_time   TEXT,
    scheduled_delivery_date TEXT,
    scheduled_delivery_time TEXT,
    tendered_date           TEXT,
    actual_pickup_date      TEXT,
    actual_delivery_date    TEXT,
    requested_delivery_date TEXT,
    miles                   TEXT,
    total_cost              TEXT,
    updated_at              TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS loadfeed_cursor (
    feed   TEXT PRIMARY KEY,
    cursor TEXT NOT NULL
  );
`);

const upsertLoad = db.prepare(`
  INSERT INTO loads (
    load_number, po_number, billing_ref_number,
    origin_city, origin_state, origin_zip, origin_warehouse,
    destination_city, destination_state, destination_zip, destination_warehouse,
    status, scheduled_pickup_date, scheduled_pickup_time, scheduled_delivery_date, scheduled_delivery_time,
    tendered_date, actual_pickup_date, actual_delivery_date, requested_delivery_date,
    miles, total_cost, updated_at
  ) VALUES (
    @loadNumber, @poNumber, @billingRefNumber,
    @originCity, @originState, @originZip, @originWarehouse,
    @destinationCity, @destinationState, @destinationZip, @destinationWarehouse,
    @status, @scheduledPickupDate, @scheduledPickupTime, @scheduledDeliveryDate, @scheduledDeliveryTime,
    @tenderedDate, @actualPickupDate, @actualDeliveryDate, @requestedDeliveryDate,
    @miles, @totalCost, @updatedAt
  )
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
  WHERE excluded.updated_at >= loads.updated_at
`);
const readCursor = db.prepare(`SELECT cursor FROM loadfeed_cursor WHERE feed = 'loads'`);
const writeCursor = db.prepare(`
  INSERT INTO loadfeed_cursor (feed, cursor) VALUES ('loads', ?)
  ON CONFLICT (feed) DO UPDATE SET cursor = excluded.cursor
`);

// One transaction per page: the upsert opens it, saving the cursor commits it. (The sync saves the
// cursor only after `upsert` returns, and rows it hands over without a new cursor ride along with the
// next commit.)
const begin = () => {
  if (!db.inTransaction) db.exec('BEGIN IMMEDIATE');
};

/** @type {import('@loadfeed/sdk').CursorStore} */
const cursorStore = {
  load: () => readCursor.get()?.cursor,
  save(cursor) {
    begin();
    writeCursor.run(cursor);
    db.exec('COMMIT');
  },
};

const client = createClient({ baseUrl: LOADFEED_BASE_URL, apiKey: LOADFEED_API_KEY, userAgent: 'sync-to-sqlite-example' });

try {
  const summary = await syncLoads({
    client,
    cursorStore,
    /** @param {import('@loadfeed/sdk').LoadRow[]} rows */
    upsert(rows) {
      begin();
      for (const { createdAt: _tolerated, ...load } of rows) upsertLoad.run(load);
    },
  });
  if (db.inTransaction) db.exec('COMMIT');
  console.log(`synced ${summary.rows} rows in ${summary.pages} pages; cursor ${summary.cursor ?? '(none yet)'}`);
} catch (error) {
  // Undo a page whose cursor was not saved; the next run reads it again.
  if (db.inTransaction) db.exec('ROLLBACK');
  console.error(`sync failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  db.close();
}
