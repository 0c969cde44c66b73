import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_OFF_INDEXES } from '../../src/db/cut-off-indexes.js';
import { feedIndexCutoff, keepFeedIndexCurrent } from '../../src/db/feed-index.js';
import { choosePageStatement, feedParameters } from '../../src/loads/list.js';
import { COUNTED_PAGE_SQL } from '../../src/loads/list-statements.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';
import { acmeId, planNodes, seedPlannerSizedFeed } from '../support/plans.js';
import { feedWindowStart } from '@loadfeed/spec';

describe('the feed index', () => {
  const database = useTestDatabase();
  let app: TestApp;

  const feedIndexes = async () =>
    (await app.pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'loads' AND indexname LIKE 'loads_feed_since_%' ORDER BY 1")).rows.map(
      (row) => row.name,
    );

  const statusIndexes = async () =>
    (await app.pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'loads' AND indexname LIKE 'loads\\_feed\\_status\\_%' ORDER BY 1")).rows.map(
      (row) => row.name,
    );

  beforeAll(async () => {
    app = await startApp(database.url);
    // Enough rows, in and out of the window, for the planner to prefer an index.
    await seedPlannerSizedFeed(app, 20_000, 700);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('has a cutoff before the window start, so that the window\'s cutoff always implies its predicate', () => {
    for (const day of ['2026-01-01', '2026-03-31', '2026-02-28', '2024-02-29', '2026-12-31']) {
      const now = new Date(`${day}T23:59:59.999Z`);
      expect(feedIndexCutoff(now).getTime()).toBeLessThan(feedWindowStart(now).getTime());
    }
  });

  it('serves a deep page of the feed by an index-only scan of the feed index', async () => {
    const parameters = [...feedParameters({ customerId: await acmeId(app), windowStart: feedWindowStart(new Date()), settledThrough: new Date().toISOString() }, { page: 80, pageSize: 100 }), 80, 100];
    const nodes = await planNodes(app.pool, COUNTED_PAGE_SQL, parameters);
    const [current] = await feedIndexes();
    // The page walks the feed index; the count reads whichever index holds the window's rows (the
    // feed's or the pickup range's), both without the table.
    const scans = nodes.filter((node) => node['Index Name'] !== undefined || node['Node Type'].endsWith('Scan'));
    expect(scans.filter((node) => node['Index Name'] === current).map((node) => node['Node Type'])).toContain('Index Only Scan');
    expect(scans.map((node) => `${node['Node Type']} ${node['Index Name']}`)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Index Only Scan loads_feed_(since_|pickup)/), expect.stringMatching(/^Index Only Scan loads_feed_since_/), 'Index Scan loads_pkey']),
    );
    expect(scans.filter((node) => node['Index Name']?.startsWith('loads_feed_')).every((node) => node['Node Type'] === 'Index Only Scan')).toBe(true);
    expect(nodes.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
  });

  it("serves the previous release's page statement (feed_loads with eleven arguments, which now calls the query form) by the same index-only scan", async () => {
    // Its arguments are folded into the query value and taken apart again when both calls are inlined:
    // the window's bound still proves the feed index's predicate (sql/functions/feed_loads.sql).
    const previousPage = `
SELECT l.id FROM feed_loads($1::bigint, $2::timestamptz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, $3::timestamptz) AS l
 ORDER BY l.updated_at, l.id OFFSET 7900 LIMIT 100`;
    const nodes = await planNodes(app.pool, previousPage, [await acmeId(app), feedWindowStart(new Date()).toISOString(), new Date().toISOString()]);
    const [current] = await feedIndexes();
    expect(nodes.filter((node) => node['Index Name'] === current).map((node) => node['Node Type'])).toEqual(['Index Only Scan']);
    expect(nodes.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
  });

  it('is renewed with a later cutoff as the window moves, the old one dropped, without an operator', async () => {
    const [before] = await feedIndexes();
    const [statusBefore] = await statusIndexes();
    expect(statusBefore).toBe(before!.replace('loads_feed_since_', 'loads_feed_status_'));
    expect(await keepFeedIndexCurrent(app.pool, new Date())).toMatchObject({ current: before, rebuilt: false });
    const later = new Date(Date.now() + 62 * 86_400_000);
    const renewed = await keepFeedIndexCurrent(app.pool, later);
    expect(renewed.rebuilt).toBe(true);
    expect(renewed.current > before!).toBe(true);
    expect(await feedIndexes()).toEqual([renewed.current]);
    // The status index moves with it, to the same cutoff.
    const status = renewed.current.replace('loads_feed_since_', 'loads_feed_status_');
    expect(renewed.indexes).toEqual([
      { file: 'loads_feed_since.sql', current: renewed.current, rebuilt: true },
      { file: 'loads_feed_status.sql', current: status, rebuilt: true },
    ]);
    expect(await statusIndexes()).toEqual([status]);
    // Still used: the queries' cutoff on that later day implies the new predicates.
    const scope = { customerId: await acmeId(app), windowStart: feedWindowStart(later), settledThrough: later.toISOString() };
    const parameters = [...feedParameters(scope, { page: 1, pageSize: 100 }), 1, 100];
    expect((await planNodes(app.pool, COUNTED_PAGE_SQL, parameters)).some((node) => node['Index Name'] === renewed.current)).toBe(true);
    const byStatus = choosePageStatement(scope, { page: 1, pageSize: 100, statuses: ['Delivered'] }, undefined);
    // On a seed this small the planner may walk the feed index for a status (PostgreSQL 18 does): the
    // status index is asked for alone, the feed index dropped in a transaction rolled back.
    const client = await app.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DROP INDEX ${renewed.current}`);
      const plan = await planNodes(client, byStatus.sql, byStatus.values);
      expect(plan.filter((node) => node['Index Name'] === status).map((node) => node['Node Type'])).toContain('Index Only Scan');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it.each(CUT_OFF_INDEXES.map((index) => [index.file, index] as const))('is made again from sql/indexes/%s when the index there is not what the file makes', async (file, index) => {
    const { rows: versions } = await app.pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'loads' AND indexname LIKE $1::text", [
      `${index.prefix.replaceAll('_', '\\_')}%`,
    ]);
    expect(versions).toHaveLength(1);
    const current = versions[0]!.name;
    const definition = async () => (await app.pool.query<{ d: string }>('SELECT pg_get_indexdef($1::regclass) AS d', [current])).rows[0]!.d;
    const made = await definition();
    // An index of an older definition under today's name: no INCLUDE columns.
    await app.pool.query(`DROP INDEX ${current}`);
    await app.pool.query(made.replace(/ INCLUDE \([^)]*\)/, ''));
    expect(await definition()).not.toBe(made);
    const [year, month] = current.slice(index.prefix.length).split('_').map(Number);
    const now = new Date(Date.UTC(year!, month! - 1 + 13, 2));
    const renewed = await keepFeedIndexCurrent(app.pool, now);
    expect(renewed.indexes.map((each) => [each.file, each.rebuilt])).toEqual(CUT_OFF_INDEXES.map((each) => [each.file, each.file === file]));
    expect(renewed.indexes.find((each) => each.file === file)?.current).toBe(current);
    expect(await definition()).toBe(made);
    expect((await app.pool.query('SELECT 1 FROM pg_indexes WHERE indexname LIKE $1::text', [`${index.prefix.replaceAll('_', '\\_')}%`])).rowCount).toBe(1);
    expect((await keepFeedIndexCurrent(app.pool, now)).indexes.some((each) => each.rebuilt)).toBe(false);
  });

  it('cancels a renewal under way when asked (a server stopping), and the next run replaces what it left', async () => {
    const due = new Date(Date.now() + 124 * 86_400_000);
    // A transaction that wrote to loads and stays open holds a concurrent index build in its wait.
    const writer = await app.pool.connect();
    await writer.query('BEGIN');
    await writer.query('UPDATE loads SET status = status WHERE id = (SELECT min(id) FROM loads)');
    const stopping = new AbortController();
    const renewal = keepFeedIndexCurrent(app.pool, due, { signal: stopping.signal });
    try {
      // Cancelled while the build waits for the open writer, not before it was sent.
      for (let waiting = false; !waiting; ) {
        const { rows } = await app.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND query ILIKE 'CREATE INDEX CONCURRENTLY%' AND wait_event_type = 'Lock'`,
        );
        waiting = rows[0]!.n > 0;
      }
      stopping.abort();
      await expect(renewal).rejects.toThrow(/cancel/i);
      // What an interrupted concurrent build leaves: an invalid index under the new name.
      const { rows: left } = await app.pool.query<{ valid: boolean }>(
        "SELECT i.indisvalid AS valid FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid WHERE c.relname = 'loads_feed_since_' || to_char($1::date, 'YYYY_MM_DD')",
        [feedIndexCutoff(due).toISOString().slice(0, 10)],
      );
      expect(left).toEqual([{ valid: false }]);
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
    const renewed = await keepFeedIndexCurrent(app.pool, due);
    expect(renewed.rebuilt).toBe(true);
    expect(await feedIndexes()).toEqual([renewed.current]);
    const { rows } = await app.pool.query<{ valid: boolean }>('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = $1::regclass', [renewed.current]);
    expect(rows[0]!.valid).toBe(true);
  });

  /** The app's pool, with every statement of the upkeep's own session seen by `onQuery` before it is sent. */
  function watchedPool(onQuery: (text: string) => void): { pool: pg.Pool; released: () => number } {
    let released = 0;
    const pool = {
      query: (text: string, values?: unknown[]) => app.pool.query(text, values),
      async connect() {
        const client = await app.pool.connect();
        const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<unknown>;
        const release = client.release.bind(client);
        Object.assign(client, {
          query: (config: string | { text: string }, values?: unknown) => {
            try {
              onQuery(typeof config === 'string' ? config : config.text);
            } catch (error) {
              return Promise.reject(error);
            }
            return query(config, values);
          },
          release: (error?: Error | boolean) => {
            released += 1;
            release(error);
          },
        });
        return client;
      },
    } as unknown as pg.Pool;
    return { pool, released: () => released };
  }

  it('sends no statement once cancelled, even one the cancel did not reach (a build after the abort)', async () => {
    const due = new Date(Date.now() + 400 * 86_400_000);
    const before = await feedIndexes();
    const stopping = new AbortController();
    const sent: string[] = [];
    const { pool, released } = watchedPool((text) => {
      sent.push(text);
      // The abort lands while the session lists the indexes: between two statements.
      if (text.includes('pg_index')) setImmediate(() => stopping.abort());
    });
    const renewal = keepFeedIndexCurrent(pool, due, { signal: stopping.signal });
    await expect(renewal).rejects.toThrow(/abort/i);
    expect(sent.some((text) => /CREATE INDEX/.test(text))).toBe(false);
    expect(released()).toBe(1);
    expect(await feedIndexes()).toEqual(before);
    // Nothing is left holding the upkeep lock: an exclusive session-level advisory lock in this file's own
    // database (other files' locks are in their databases; writers announce themselves with shared locks).
    const { rows } = await app.pool.query<{ n: number }>(`
      SELECT count(*)::int AS n FROM pg_locks AS l
       WHERE l.locktype = 'advisory' AND l.mode = 'ExclusiveLock'
         AND l.database = (SELECT d.oid FROM pg_database AS d WHERE d.datname = current_database())`);
    expect(rows[0]!.n).toBe(0);
  });

  it('releases its session when its first statement fails', async () => {
    const { pool, released } = watchedPool((text) => {
      if (text.includes('pg_backend_pid')) throw new Error('connection lost');
    });
    await expect(keepFeedIndexCurrent(pool, new Date(Date.now() + 400 * 86_400_000))).rejects.toThrow('connection lost');
    expect(released()).toBe(1);
  });
});
