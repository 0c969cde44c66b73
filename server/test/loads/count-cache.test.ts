import fc from 'fast-check';
import { LOAD_STATUSES, type LoadPage, type LoadStatus } from '@loadfeed/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTERS_COUNT_SQL } from '../../src/loads/count-statements.js';
import { COUNT_SQL, PAGE_FROM_START_SQL, PAGE_STATEMENTS } from '../../src/loads/list-statements.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, testClock, type TestApp } from '../support/app.js';

describe('the kept totalCount', () => {
  const database = useTestDatabase();
  const clock = testClock('2026-06-15T12:00:00.000Z');
  let app: TestApp;
  let key: string;
  let psql: pg.Client;
  const statements: string[] = [];
  const clientQuery = pg.Client.prototype.query;
  /** A write to make right after the next count statement, before the page is read. */
  let writeAfterCount: (() => Promise<unknown>) | undefined;
  /** How long each count statement's answer is held back before its caller sees it. */
  let countDelayMs = 0;

  async function totalCount(query = ''): Promise<number> {
    const response = await app.get(`/api/v1/loads?pageSize=1${query}`, key);
    expect(response.statusCode).toBe(200);
    return (JSON.parse(response.payload) as LoadPage).totalCount;
  }

  beforeAll(async () => {
    app = await startApp(database.url, { clock });
    // Records which statement each request ran, to see whether the count was taken or reused: on the
    // connection, where a page's statements go (each on a connection checked out for it, db/cancellable.ts).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = args[0];
      if (typeof text === 'string') statements.push(text);
      const run = () => (clientQuery as (...args: unknown[]) => unknown).apply(this, args);
      if (countDelayMs > 0 && typeof text === 'string' && (text.includes('count(*) AS n') || text.includes('feed_count('))) {
        // A count that takes a while, as a big customer's does: the requests behind it are admitted meanwhile.
        return (async () => {
          const result = await (run() as Promise<unknown>);
          await new Promise((resolve) => setTimeout(resolve, countDelayMs));
          return result;
        })();
      }
      if ((text !== COUNT_SQL && text !== COUNTERS_COUNT_SQL) || !writeAfterCount) return run();
      const write = writeAfterCount;
      writeAfterCount = undefined;
      return (async () => {
        const result = await (run() as Promise<unknown>);
        await write();
        return result;
      })();
    } as typeof clientQuery;
    await app.customer('acme');
    key = (await app.key('acme')).key;
    await app.load('acme', [aLoad('K-1'), aLoad('K-2')]);
    psql = new pg.Client({ connectionString: database.url });
    await psql.connect();
  });
  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await psql?.end();
    await app?.close();
  });

  it('is reused while nothing changed, and counted again after any write, whoever writes', async () => {
    expect(await totalCount()).toBe(2);
    statements.length = 0;
    expect(await totalCount()).toBe(2);
    expect(statements).toContain(PAGE_FROM_START_SQL);
    expect(statements).not.toContain(PAGE_STATEMENTS.feed.countedPageByCounters);

    await app.load('acme', [aLoad('K-3')]);
    expect(await totalCount()).toBe(3);

    await psql.query("DELETE FROM loads WHERE load_number = 'K-1'");
    expect(await totalCount()).toBe(2);

    await psql.query("UPDATE loads SET scheduled_pickup_date = '2020-01-01T00:00:00Z' WHERE load_number = 'K-2'");
    expect(await totalCount()).toBe(1);

    await psql.query("INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date) SELECT id, 'K-9', 'Covered', '2026-06-01T00:00:00Z' FROM customers WHERE code = 'acme'");
    expect(await totalCount()).toBe(2);

    await psql.query('TRUNCATE loads');
    expect(await totalCount()).toBe(0);
  });

  it('takes a deep page and its count from one statement when a write lands between its count and its read', async () => {
    const dispatched = (loadNumber: string) => aLoad(loadNumber, { status: 'Dispatched' });
    await app.load('acme', [dispatched('R-1'), dispatched('R-2'), dispatched('R-3')]);
    // A write stamped after the request's settled horizon is not the request's to see; a delete is.
    writeAfterCount = () => psql.query("DELETE FROM loads WHERE load_number = 'R-1'");
    statements.length = 0;
    const response = await app.get('/api/v1/loads?pageSize=1&page=3&status=Dispatched', key);
    const page = JSON.parse(response.payload) as LoadPage;
    // Counted at 3 rows, page 3 is the last: read from the end under that count, it would be R-3.
    const { countedPageByCounters: countedPage, fromStart, fromEnd } = PAGE_STATEMENTS.status;
    expect(statements.filter((text) => [COUNTERS_COUNT_SQL, fromEnd, fromStart, countedPage].includes(text))).toEqual([COUNTERS_COUNT_SQL, fromEnd, countedPage]);
    expect({ loads: page.data.map((load) => load.loadNumber), totalCount: page.totalCount, hasMore: page.hasMore }).toEqual({ loads: [], totalCount: 2, hasMore: false });
  });

  it('is counted once for misses that arrive together: the others wait for that count and read the page alone', async () => {
    await app.load('acme', [aLoad('C-1', { status: 'Loading' }), aLoad('C-2', { status: 'Loading' })]);
    statements.length = 0;
    countDelayMs = 300;
    const responses = await Promise.all(Array.from({ length: 8 }, () => app.get('/api/v1/loads?pageSize=1&status=Loading', key))).finally(() => (countDelayMs = 0));
    expect(responses.map((response) => (JSON.parse(response.payload) as LoadPage).totalCount)).toEqual(Array(8).fill(2));
    const { countedPageByCounters: countedPage, fromStart } = PAGE_STATEMENTS.status;
    expect(statements.filter((text) => text === countedPage || text === COUNTERS_COUNT_SQL)).toHaveLength(1);
    expect(statements.filter((text) => text === fromStart)).toHaveLength(7);
  });

  it('survives an unchanged re-import without a recount', async () => {
    await app.load('acme', [aLoad('U-1'), aLoad('U-2')]);
    expect(await totalCount('&status=Available')).toBe(2);
    await app.load('acme', [aLoad('U-1'), aLoad('U-2')]);
    statements.length = 0;
    expect(await totalCount('&status=Available')).toBe(2);
    expect(statements).not.toContain(PAGE_STATEMENTS.status.countedPageByCounters);
  });

  it('is kept per filter set and per window, so neither a filter nor the window\'s move reuses another count', async () => {
    await app.load('acme', [aLoad('W-1', { scheduledPickupDate: '2025-06-15T00:00:00.000Z', status: 'Covered' })]);
    const before = await totalCount();
    expect(await totalCount('&status=Covered')).toBe(1);
    clock.set('2026-06-16T00:00:00.000Z');
    try {
      expect(await totalCount()).toBe(before - 1);
      expect(await totalCount('&status=Covered')).toBe(0);
    } finally {
      clock.set('2026-06-15T12:00:00.000Z');
    }
  });

  it('is not shared between customers', async () => {
    await app.customer('other');
    const other = (await app.key('other')).key;
    const response = await app.get('/api/v1/loads?pageSize=1', other);
    expect((JSON.parse(response.payload) as LoadPage).totalCount).toBe(0);
  });

  it('stays exact under any interleaving of imports, SQL writes and queries', async () => {
    await app.customer('mixed');
    const mixedKey = (await app.key('mixed')).key;
    const statuses = LOAD_STATUSES.slice(0, 3) as LoadStatus[];
    const numbers = ['M-1', 'M-2', 'M-3', 'M-4', 'M-5'];
    const step = fc.oneof(
      fc.record({ kind: fc.constant('import' as const), loadNumber: fc.constantFrom(...numbers), status: fc.constantFrom(...statuses), inWindow: fc.boolean() }),
      fc.record({ kind: fc.constant('delete' as const), loadNumber: fc.constantFrom(...numbers) }),
      fc.record({ kind: fc.constant('query' as const), status: fc.option(fc.constantFrom(...statuses), { nil: undefined }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        for (const action of steps) {
          if (action.kind === 'import') {
            const scheduledPickupDate = action.inWindow ? '2026-06-01T00:00:00.000Z' : '2020-06-01T00:00:00.000Z';
            await app.load('mixed', [aLoad(action.loadNumber, { status: action.status, scheduledPickupDate })]);
          } else if (action.kind === 'delete') {
            await psql.query("DELETE FROM loads WHERE load_number = $1::text AND customer_id = (SELECT id FROM customers WHERE code = 'mixed')", [action.loadNumber]);
          } else {
            const response = await app.get(`/api/v1/loads?pageSize=2${action.status ? `&status=${action.status}` : ''}`, mixedKey);
            const { rows } = await psql.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM loads AS l JOIN customers AS c ON c.id = l.customer_id
                WHERE c.code = 'mixed' AND l.scheduled_pickup_date >= '2025-06-15T00:00:00Z' AND ($1::text IS NULL OR l.status::text = $1::text)`,
              [action.status ?? null],
            );
            expect((JSON.parse(response.payload) as LoadPage).totalCount).toBe(rows[0]!.n);
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});
