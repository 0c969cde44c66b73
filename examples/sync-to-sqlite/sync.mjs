#!/usr/bin/env node
// A scheduled sync of your loads into SQLite. Run it from cron (or any scheduler) as often as you like:
// each run fetches only what changed since the last one.
//
// The copy is the SDK's SQLite destination, the same database `loadfeed sync --sqlite` and
// `loadfeed verify --sqlite` use: table `loads` keyed by "loadNumber" (one TEXT column per API field, under
// its API name), the cursor in `loadfeed_sync`, saved in the SAME transaction as the rows of its page. A
// crash at any moment leaves the page and its cursor, or neither, never a cursor ahead of its rows.
//
// Environment: LOADFEED_BASE_URL, LOADFEED_API_KEY, SQLITE_PATH (default loads.db).
import { createClient, syncLoads } from '@loadfeed/sdk';
import { openSqliteDestination } from '@loadfeed/sdk/destinations';

const { LOADFEED_BASE_URL, LOADFEED_API_KEY, SQLITE_PATH = 'loads.db' } = process.env;
if (!LOADFEED_BASE_URL || !LOADFEED_API_KEY) {
  console.error('set LOADFEED_BASE_URL and LOADFEED_API_KEY');
  process.exit(2);
}

const client = createClient({ baseUrl: LOADFEED_BASE_URL, apiKey: LOADFEED_API_KEY, userAgent: 'sync-to-sqlite-example' });

let destination;
try {
  // Creates the tables on the first run; checks them (and takes `<file>.lock`) on every run.
  destination = await openSqliteDestination(SQLITE_PATH);
  const summary = await syncLoads({ client, destination });
  console.log(`synced ${summary.rows} rows in ${summary.pages} pages; cursor ${summary.cursor ?? '(none yet)'}`);
} catch (error) {
  // What was committed stays: whole pages with their cursor. The next run resumes from it.
  console.error(`sync failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await destination?.close();
}
