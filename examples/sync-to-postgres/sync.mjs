#!/usr/bin/env node
// A scheduled sync of your loads into your own PostgreSQL. Run it from cron (or any scheduler): each run
// fetches only what changed since the last one. (`npx loadfeed sync --postgres "$DATABASE_URL"` does the
// same without a script; this is the same thing from code, to grow into your own job.)
//
// The SDK's PostgreSQL destination creates table `loads` (keyed by load_number, typed columns) and
// `loadfeed_cursor` on the first run, and writes each page's rows and the cursor after them in ONE
// transaction: a crash at any moment leaves the page and its cursor, or neither.
//
// Environment: LOADFEED_BASE_URL, LOADFEED_API_KEY, DATABASE_URL (your PostgreSQL).
import { createClient, syncLoads } from '@loadfeed/sdk';
import { openPostgresDestination } from '@loadfeed/sdk/destinations';

const { LOADFEED_BASE_URL, LOADFEED_API_KEY, DATABASE_URL } = process.env;
if (!LOADFEED_BASE_URL || !LOADFEED_API_KEY || !DATABASE_URL) {
  console.error('set LOADFEED_BASE_URL, LOADFEED_API_KEY and DATABASE_URL');
  process.exit(2);
}

let destination;
try {
  destination = await openPostgresDestination({ connectionString: DATABASE_URL });
  const client = createClient({ baseUrl: LOADFEED_BASE_URL, apiKey: LOADFEED_API_KEY, userAgent: 'sync-to-postgres-example' });
  const summary = await syncLoads({ client, destination });
  console.log(`synced ${summary.rows} rows in ${summary.pages} pages; cursor ${summary.cursor ?? '(none yet)'}`);
} catch (error) {
  console.error(`sync failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await destination?.close();
}
