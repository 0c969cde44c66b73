// The planned page statements (sql/functions/feed_page_from_start.sql, feed_page_from_end.sql): a plan
// made once per connection and kept, for queries without filters but updatedSince. They must read what
// the query's own statements read, byte for byte, on any data, with the plan kept across feed index
// renewals; and answer no row, so that the caller falls back, when the window starts before the index.
import fc from 'fast-check';
import { feedWindowStart } from '@loadfeed/spec';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepFeedIndexCurrent } from '../../src/db/feed-index.js';
import { feedParameters } from '../../src/loads/list.js';
import { PAGE_FROM_END_SQL, PAGE_FROM_START_SQL, PLANNED_PAGE_FROM_END_SQL, PLANNED_PAGE_FROM_START_SQL } from '../../src/loads/list-statements.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, testClock, type TestApp } from '../support/app.js';

const DAY_MS = 86_400_000;

describe('the planned page statements', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let session: pg.PoolClient;
  let customerId: string;
  /** Every stamp the customer's loads carry, to pick updatedSince bounds from. */
  let stamps: string[] = [];

  const now = new Date();
  const scopeAt = (at: Date) => ({ customerId, windowStart: feedWindowStart(at), settledThrough: new Date(at.getTime() + DAY_MS).toISOString() });
  const rowOf = async (sql: string, values: unknown[]) => (await session.query(sql, values)).rows;

  beforeAll(async () => {
    app = await startApp(database.url, { clock: testClock(now) });
    await app.customer('acme');
    await app.customer('other');
    customerId = (await app.pool.query<{ id: string }>("SELECT id::text FROM customers WHERE code = 'acme'")).rows[0]!.id;
    // Pickups inside the window, before it, far ahead and none; several imports, so that stamps differ.
    const pickup = (n: number) => (n % 7 === 0 ? null : new Date(now.getTime() + ((n % 11) - 8) * 45 * DAY_MS).toISOString());
    for (let batch = 0; batch < 4; batch++) {
      const loads = Array.from({ length: 30 }, (_, index) => aLoad(`P-${batch}-${index}`, { scheduledPickupDate: pickup(batch * 30 + index) }));
      await app.load('acme', loads);
      await app.load('other', loads.slice(0, 10));
    }
    stamps = (await app.pool.query<{ at: string }>("SELECT DISTINCT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS at FROM loads ORDER BY 1")).rows.map((row) => row.at);
    // One connection for every read: the plans it keeps are the ones under test.
    session = await app.pool.connect();
  });
  afterAll(async () => {
    session?.release();
    await app?.close();
  });

  it('read the same pages as the query\'s own statements, from the start and from the end, with and without updatedSince', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.constantFrom(...stamps), { nil: undefined }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 25 }),
        fc.nat({ max: 130 }),
        async (updatedSince, page, pageSize, after) => {
          const feed = feedParameters(scopeAt(now), { page, pageSize, ...(updatedSince ? { updatedSince } : {}) });
          const fromStart = await rowOf(PLANNED_PAGE_FROM_START_SQL, [...feed, page, pageSize]);
          expect(fromStart).toHaveLength(1);
          expect(fromStart).toEqual(await rowOf(PAGE_FROM_START_SQL, [...feed, page, pageSize]));
          const fromEnd = await rowOf(PLANNED_PAGE_FROM_END_SQL, [...feed, after, pageSize]);
          expect(fromEnd).toHaveLength(1);
          expect(fromEnd).toEqual(await rowOf(PAGE_FROM_END_SQL, [...feed, after, pageSize]));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('serve a page by an index-only scan of the feed index (the plan kept has the cutoff folded in)', async () => {
    const { rows: indexes } = await session.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'loads' AND indexname LIKE 'loads_feed_since_%'");
    // auto_explain reports the plan of the statement inside the function as a message to this session.
    const plans: string[] = [];
    const listen = (message: { message?: string }) => void (message.message?.includes('Query Text') && plans.push(message.message));
    session.on('notice', listen);
    await session.query("LOAD 'auto_explain'");
    await session.query("SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log");
    try {
      const feed = feedParameters(scopeAt(now), { page: 2, pageSize: 10 });
      await session.query(PLANNED_PAGE_FROM_START_SQL, [...feed, 2, 10]);
      await session.query(PLANNED_PAGE_FROM_START_SQL, [...feed, 3, 10]);
    } finally {
      await session.query('RESET auto_explain.log_min_duration; RESET client_min_messages');
      session.off('notice', listen);
    }
    const nested = plans.filter((plan) => plan.includes('WITH page AS'));
    expect(nested).toHaveLength(2);
    for (const plan of nested) {
      expect(plan).toContain(`Index Only Scan using ${indexes[0]!.name}`);
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('answer the feed\'s state and no page when the window starts before the feed index\'s cutoff, so that the query\'s own statement reads the page', async () => {
    const { rows } = await session.query<{ cutoff: Date }>('SELECT feed_index_cutoff() AS cutoff');
    const feed = feedParameters({ ...scopeAt(now), windowStart: new Date(rows[0]!.cutoff.getTime() - DAY_MS) }, { page: 1, pageSize: 10 });
    const [unplanned] = await rowOf(PAGE_FROM_START_SQL, [...feed, 1, 10]);
    expect(unplanned.page_rows).toBeGreaterThan(0);
    // The feed version stays: a read on a standby is checked by it (src/db/current-enough.ts).
    const noPage = { feed_version: unplanned.feed_version, latest_updated_at: unplanned.latest_updated_at, total_count: null, page_rows: null, data: null };
    expect(await rowOf(PLANNED_PAGE_FROM_START_SQL, [...feed, 1, 10])).toEqual([noPage]);
    expect(await rowOf(PLANNED_PAGE_FROM_END_SQL, [...feed, 0, 10])).toEqual([noPage]);
  });

  it('keep reading the same pages after the feed index is renewed with a later cutoff (the kept plan is made again)', async () => {
    const later = new Date(now.getTime() + 62 * DAY_MS);
    const feed = feedParameters(scopeAt(later), { page: 1, pageSize: 20 });
    const before = await rowOf(PLANNED_PAGE_FROM_START_SQL, [...feed, 1, 20]);
    const renewed = await keepFeedIndexCurrent(app.pool, later);
    expect(renewed.rebuilt).toBe(true);
    const { rows } = await session.query<{ cutoff: Date }>('SELECT feed_index_cutoff() AS cutoff');
    expect(rows[0]!.cutoff.toISOString().slice(0, 10).replaceAll('-', '_')).toBe(renewed.current.slice('loads_feed_since_'.length));
    const after = await rowOf(PLANNED_PAGE_FROM_START_SQL, [...feed, 1, 20]);
    expect(after).toHaveLength(1);
    expect(after).toEqual(before);
    expect(after).toEqual(await rowOf(PAGE_FROM_START_SQL, [...feed, 1, 20]));
  });
});
