// What server/DESIGN.md ("Upgrade notes") says of upgrading to this release: instances of the previous release keep
// serving while migrations 0014 (the rate window on the database's clock) and 0015 (page JSON made per
// page) apply, and after: their admissions count in the same window as the new release's, and their
// pages read the same JSON. Their statements are sent here exactly as that release sends them.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type pg from 'pg';
import { feedWindowStart, RATE_WINDOW_MS } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitRequest } from '../../src/admission/admit-request.js';
import { LAST_USED_RESOLUTION_MS } from '../../src/admission/credentials.js';
import { hashKey } from '../../src/admission/key-format.js';
import { loadConfig, poolOptionsOf } from '../../src/config/load.js';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { importLoads } from '../../src/loads/import.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad } from '../support/app.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
/** The migrations of the previous release: every one before 0014. */
const PREVIOUS_RELEASE_MIGRATIONS = readdirSync(MIGRATIONS).filter((name) => name.endsWith('.sql') && name < '0014').length;

/** The previous release's admission (src/auth/admission.ts): the instance's own clock as $3. */
const PREVIOUS_ADMIT_SQL = `
SELECT key_id, customer_id::text AS customer_id, customer_code, rate_limit, admitted, counted, oldest, admits_at, settled_through, feed_version::text AS feed_version
  FROM admit_request($1::bytea, $2::integer, $3::timestamptz, $4::integer * interval '1 millisecond', $5::integer * interval '1 millisecond')`;

/** The previous release's first page with its count (src/loads/list-statements.ts): the stored l.api_json. */
const PREVIOUS_COUNTED_PAGE_SQL = `
WITH total AS (
  SELECT count(*) AS n
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
), page AS (
  SELECT l.id
    FROM feed_loads($1::bigint, $2::timestamptz, $3::timestamptz, $4::load_status[], $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz, $9::text, $10::text, $11::timestamptz) AS l
   ORDER BY l.updated_at, l.id
  OFFSET ($12::bigint - 1) * $13::bigint LIMIT $13::bigint
), rows AS (
  SELECT count(*)::integer AS n, '[' || coalesce(string_agg(l.api_json, ',' ORDER BY l.updated_at, l.id), '') || ']' AS json
    FROM page JOIN loads AS l ON l.id = page.id
)
SELECT s.feed_version, s.latest_updated_at, total.n::text AS total_count, rows.n AS page_rows, rows.json AS data
  FROM feed_state($1::bigint) AS s, total, rows`;

/** The previous release's eleven feed parameters (src/loads/list.ts), for a first page without filters. */
function previousFeedParameters({ customerId, windowStart, settledThrough }: { customerId: string; windowStart: Date; settledThrough: string }): unknown[] {
  return [customerId, windowStart.toISOString(), null, null, null, null, null, null, null, null, settledThrough];
}

interface PreviousAdmission {
  customer_id: string;
  admitted: boolean;
  counted: number;
  settled_through: Date;
}

async function previousAdmit(pool: pg.Pool, key: string): Promise<PreviousAdmission> {
  const { rows } = await pool.query<PreviousAdmission>(PREVIOUS_ADMIT_SQL, [hashKey(key), 10, new Date(), RATE_WINDOW_MS, LAST_USED_RESOLUTION_MS]);
  return rows[0]!;
}

async function previousPage(pool: pg.Pool, admission: PreviousAdmission): Promise<{ total: string; data: string }> {
  const scope = { customerId: admission.customer_id, windowStart: feedWindowStart(new Date()), settledThrough: admission.settled_through.toISOString() };
  const { rows } = await pool.query<{ total_count: string; data: string }>(PREVIOUS_COUNTED_PAGE_SQL, [...previousFeedParameters(scope), 1, 100]);
  return { total: rows[0]!.total_count, data: rows[0]!.data };
}

describe('upgrading while the previous release serves', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let busy: string;
  let limited: string;

  beforeAll(async () => {
    await runner({
      databaseUrl: database.url,
      dir: MIGRATIONS,
      direction: 'up',
      count: PREVIOUS_RELEASE_MIGRATIONS,
      migrationsTable: 'pgmigrations',
      checkOrder: true,
      singleTransaction: true,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    // The previous release's server sessions: its lock and statement timeouts.
    pool = createPool(database.url, poolOptionsOf(loadConfig({ DATABASE_URL: database.url })));
    await addCustomer(pool, 'acme');
    await importLoads(pool, 'acme', [aLoad('U-1', { originCity: 'Reno', totalCost: '10.50' }), aLoad('U-2', { tenderedDate: '2026-05-01T10:00:00.123Z' })].map((value, index) => ({ line: index + 1, value })));
    busy = (await createKey(pool, 'acme', { rateLimit: 1_000_000 })).key;
    limited = (await createKey(pool, 'acme', { rateLimit: 5 })).key;
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('keeps answering its admissions and pages while 0014 and 0015 apply, and counts in the window the new release shares', async () => {
    for (let request = 0; request < 3; request += 1) expect((await previousAdmit(pool, limited)).admitted).toBe(true);
    const pageBefore = await previousPage(pool, await previousAdmit(pool, busy));
    expect(pageBefore.total).toBe('2');

    // The previous release's traffic runs on while the migrations apply.
    const failures: unknown[] = [];
    let servedAfter = 0;
    let migrated = false;
    let stop = false;
    const traffic = (async () => {
      while (!stop) {
        try {
          const page = await previousPage(pool, await previousAdmit(pool, busy));
          expect(page).toEqual(pageBefore);
          if (migrated) servedAfter += 1;
        } catch (error) {
          failures.push(error);
        }
      }
    })();
    const applied = await migrate(database.url);
    migrated = true;
    while (servedAfter < 5 && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    stop = true;
    await traffic;

    expect(applied.map((name) => name.slice(0, 4))).toEqual(expect.arrayContaining(['0014', '0015']));
    expect(failures).toEqual([]);
    // The three requests counted before the upgrade still count: two more, then refusals, from either release.
    expect((await previousAdmit(pool, limited)).admitted).toBe(true);
    expect((await previousAdmit(pool, limited)).admitted).toBe(true);
    expect(await previousAdmit(pool, limited)).toMatchObject({ admitted: false, counted: 5 });
    expect((await admitRequest(pool, limited, 10))!.decision).toMatchObject({ admitted: false, remaining: 0 });
  });
});
