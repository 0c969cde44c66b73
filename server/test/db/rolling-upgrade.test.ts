// server/DESIGN.md, "Upgrading to migration 0012 (rolling)": instances of the previous release keep
// serving while 0012 applies and after it. The previous release's request is the SQL it runs (unchanged
// by 0012): admit_request (key, rate limit, horizon, feed version), then the page of feed_loads below that
// horizon; its start-up probe announces a writer of customer 0 an hour back and asks for the horizon from
// another connection. Here a writer of the old release is in flight when the migration starts.
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/admission/key-format.js';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
/** The previous release's last migration. */
const PREVIOUS_RELEASE_MIGRATIONS = 11;
/** How long the old release's writer stays open while the migration waits for it. */
const WRITER_HOLDS_MS = 2_000;

const REQUEST_SQL = `
SELECT settled_through, feed_version::text AS feed_version
  FROM admit_request($1::bytea, 1000000, now(), interval '60 seconds', interval '60 seconds')`;
const PAGE_SQL = `
SELECT l.load_number, l.po_number, to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
  FROM feed_loads($1::bigint, now() - interval '12 months', $2::timestamptz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, $3::timestamptz) AS l
 ORDER BY l.updated_at, l.id`;

describe("a rolling upgrade to this release's migrations (0012, 0014, 0015)", () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let keyHash: Buffer;
  let customerId: string;

  beforeAll(async () => {
    await runner({
      databaseUrl: database.url,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      count: PREVIOUS_RELEASE_MIGRATIONS,
      migrationsTable: 'pgmigrations',
      singleTransaction: true,
      checkOrder: true,
      log: () => {},
    });
    pool = createPool(database.url, { max: 4 });
    await addCustomer(pool, 'acme');
    customerId = (await pool.query<{ id: string }>(`SELECT id::text AS id FROM customers WHERE code = 'acme'`)).rows[0]!.id;
    keyHash = hashKey((await createKey(pool, 'acme')).key);
    await pool.query(
      `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
       SELECT $1::bigint, 'L-' || g, 'Available', now() - interval '1 day' FROM generate_series(1, 5) AS g`,
      [customerId],
    );
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('keeps serving the previous release its requests, settled, while 0012 and 0015 wait for an old writer and after it', async () => {
    expect((await pool.query(`SELECT count(*)::int AS n FROM pgmigrations`)).rows[0].n).toBe(PREVIOUS_RELEASE_MIGRATIONS);
    // A zero-overlap copy kept by the previous release's requests.
    const copy = new Map<string, string | null>();
    let cursor: string | null = null;
    const latencies: number[] = [];
    async function oldReleaseRequest(): Promise<void> {
      const started = performance.now();
      const { rows: [admitted] } = await pool.query<{ settled_through: Date }>(REQUEST_SQL, [keyHash]);
      const { rows } = await pool.query<{ load_number: string; po_number: string | null; updated_at: string }>(PAGE_SQL, [customerId, cursor, admitted!.settled_through]);
      latencies.push(performance.now() - started);
      for (const row of rows) {
        copy.set(row.load_number, row.po_number);
        if (cursor === null || row.updated_at > cursor) cursor = row.updated_at;
      }
    }
    await oldReleaseRequest();

    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    await writer.query('BEGIN');
    await writer.query(`UPDATE loads SET po_number = 'old-writer' WHERE load_number = 'L-1'`);
    const migrating = migrate(database.url);
    let migrated = false;
    void migrating.then(() => {
      migrated = true;
    });
    const writerEnds = new Promise<void>((resolve) => setTimeout(resolve, WRITER_HOLDS_MS)).then(() => writer.query('COMMIT'));
    const migrationLatencies = [];
    while (!migrated) {
      const before = latencies.length;
      await oldReleaseRequest();
      migrationLatencies.push(...latencies.slice(before));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writerEnds;
    await writer.end();
    expect(await migrating).toEqual(['0012_settled-feed-for-every-writer', '0014_rate-window-on-the-database-clock', '0015_page-json-built-per-page', '0016_feed-query-type', '0017_feed-writers-reading-readable', '0018_admission-as-a-procedure', '0019_rate-windows-unlogged', '0020_feed-filter-indexes', '0021_feed-counts']);
    // Page reads were never queued behind the migration's wait for the old writer.
    expect(migrationLatencies.length).toBeGreaterThan(10);
    expect(Math.max(...migrationLatencies)).toBeLessThan(WRITER_HOLDS_MS / 2);

    // After it: a new writer, then the copy equals the database's truth.
    await pool.query(`UPDATE loads SET po_number = 'new-writer' WHERE load_number = 'L-2'`);
    await nextDatabaseMillisecond(pool);
    await oldReleaseRequest();
    const { rows: truth } = await pool.query<{ load_number: string; po_number: string | null }>(`SELECT load_number, po_number FROM loads ORDER BY load_number`);
    expect(copy).toEqual(new Map(truth.map((row) => [row.load_number, row.po_number])));
    expect(copy.get('L-1')).toBe('old-writer');
  }, 60_000);

  it("still sees the previous release's start-up probe, so one of its instances that restarts mid-upgrade starts", async () => {
    const probe = new pg.Client({ connectionString: database.url });
    await probe.connect();
    try {
      await probe.query('BEGIN');
      const announced = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
      await probe.query('SELECT announce_feed_writer($1::bigint, $2::timestamptz)', ['0', announced]);
      const { rows } = await pool.query<{ horizon: Date }>('SELECT feed_settled_through($1::bigint) AS horizon', ['0']);
      expect(rows[0]!.horizon.getTime()).toBeLessThan(announced.getTime());
    } finally {
      await probe.end();
    }
  });
});
