// A filtered page costs what its answer costs, not what the customer has: on a customer whose matches are
// all stamped late (in-transit loads and last week's pickups, written after a year of other loads, as an
// operator's day writes them), every statement listLoads runs for page 1 and the last page of each filter
// and common pair reads at most a bounded multiple of the page and its matches; so it does on a customer
// whose loads are mostly history before the window (a status's aged-out loads are not read). Rows read are what the
// plan's scans yield and drop (EXPLAIN ANALYZE), so a plan that walks the feed index and drops the
// customer's other loads fails however fast the machine is.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTERS_COUNT_SQL } from '../../src/loads/count-statements.js';
import { choosePageStatement, feedParameters, type FeedScope } from '../../src/loads/list.js';
import type { LoadFilters } from '../../src/loads/list-query.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';
import { planNodes, type PlanNode } from '../support/plans.js';

/** Loads of the customer stamped long ago, and of a neighbour in the same table. */
const SETTLED_LOADS = 24_000;
/** Late-stamped: this many in transit and as many other loads picked up in the last week. */
const LATE_LOADS = 400;
/** A customer's history before the window, 95% completed, and its few loads in the window. */
const SHRUNK_AGED_LOADS = 12_000;
const SHRUNK_LOADS = 200;
const PAGE_SIZE = 100;
/** Rows read per row of page and matches that any statement may reach: a walk of the feed reaches ~60. */
const BOUND = 5;

interface AnalyzedNode extends PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
}

const SCANS = new Set(['Seq Scan', 'Index Scan', 'Index Only Scan', 'Bitmap Heap Scan']);

/** The rows every scan of the plan yielded or dropped, over all its loops. */
function rowsRead(nodes: AnalyzedNode[]): number {
  return nodes
    .filter((node) => SCANS.has(node['Node Type']))
    .reduce((sum, node) => sum + ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1), 0);
}

describe('a filtered page on a customer whose matches are stamped last', () => {
  const database = useTestDatabase();
  let app: TestApp;
  const day = 86_400_000;
  const now = Date.now();
  const isoDay = (offsetDays: number) => new Date(now + offsetDays * day).toISOString().slice(0, 10);

  const scopes = new Map<string, FeedScope>();

  beforeAll(async () => {
    // The seeding statements write tens of thousands of loads each: more than the default 5 s on a busy machine.
    app = await startApp(database.url, { env: { DB_STATEMENT_TIMEOUT_MS: '120000' } });
    await app.customer('big');
    await app.customer('neighbour');
    await app.customer('shrunk');
    // Seeded on a session of its own: the pool's sessions carry the server's statement_timeout and
    // deadline (5 s and 6 s), meant for requests; these inserts write ~86,000 loads through the table's
    // row triggers, which takes longer than that on a busy machine.
    const seeder = new pg.Client({ connectionString: database.url });
    await seeder.connect();
    try {
      await seeder.query("SELECT set_config('statement_timeout', '0', false)");
      // Two years of history before the window, completed or cancelled, stamped first: kept in the table,
      // out of every feed.
      await seeder.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
         SELECT c.id, c.code || '-aged-' || n, (ARRAY['Completed', 'Cancelled']::load_status[])[1 + n % 2],
                now() - interval '380 days' - (n % 700) * interval '1 day', now() - interval '378 days' - (n % 700) * interval '1 day'
           FROM customers AS c, generate_series(1, $1::int) AS n WHERE c.code = 'big'`,
        [SETTLED_LOADS],
      );
      // A customer whose loads are mostly history, 95% completed, then a few in the window. The history is
      // older than 14 months: a cut-off index keeps the month or two before the window (its cutoff is the
      // first of the month 13 months back), and leaves out what is older.
      await seeder.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
         SELECT c.id, c.code || '-aged-' || n, CASE WHEN n % 20 = 0 THEN 'Cancelled' ELSE 'Completed' END::load_status,
                now() - interval '440 days' - (n % 300) * interval '1 day', now() - interval '438 days' - (n % 300) * interval '1 day'
           FROM customers AS c, generate_series(1, $1::int) AS n WHERE c.code = 'shrunk'`,
        [SHRUNK_AGED_LOADS],
      );
      await seeder.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
         SELECT c.id, c.code || '-' || n, (ARRAY['Completed', 'InTransit']::load_status[])[1 + n % 2],
                now() - interval '8 days' - (n % 350) * interval '1 day', now() - interval '6 days' - (n % 350) * interval '1 day'
           FROM customers AS c, generate_series(1, $1::int) AS n WHERE c.code = 'shrunk'`,
        [SHRUNK_LOADS],
      );
      // A year of pickups more than a week old, delivered or completed, in one early transaction.
      await seeder.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
         SELECT c.id, c.code || '-' || n, (ARRAY['Completed', 'Delivered', 'Cancelled']::load_status[])[1 + n % 3],
                now() - interval '8 days' - (n % 350) * interval '1 day', now() - interval '6 days' - (n % 350) * interval '1 day'
           FROM customers AS c, generate_series(1, $1::int) AS n WHERE c.code IN ('big', 'neighbour')`,
        [SETTLED_LOADS],
      );
      // Then the in-flight loads and last week's pickups, each written (stamped) after all of them.
      await seeder.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date, scheduled_delivery_date)
         SELECT c.id, c.code || '-late-' || n, (ARRAY['InTransit', 'Dispatched', 'Covered', 'Available']::load_status[])[1 + n % 4],
                now() - (n % 7) * interval '1 day', now() + interval '2 days' - (n % 7) * interval '1 day'
           FROM customers AS c, generate_series(1, $1::int) AS n WHERE c.code = 'big'`,
        [LATE_LOADS * 4],
      );
      await seeder.query('SELECT fold_feed_counts()');
      await seeder.query('VACUUM ANALYZE loads, feed_counts, feed_count_changes');
    } finally {
      await seeder.end();
    }
    for (const code of ['big', 'shrunk']) {
      const customerId = (await app.pool.query<{ id: string }>('SELECT id::text FROM customers WHERE code = $1::text', [code])).rows[0]!.id;
      scopes.set(code, { customerId, windowStart: new Date(now - 365 * day), settledThrough: new Date(now + 60_000).toISOString() });
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Title, filters, and the customer (`big` unless given). */
  const queries: [string, Omit<LoadFilters, 'page' | 'pageSize'>, string?][] = [
    ['status=InTransit', { statuses: ['InTransit'] }],
    ['status=InTransit&status=Dispatched', { statuses: ['InTransit', 'Dispatched'] }],
    ['a pickup week', { pickupFrom: isoDay(-7), pickupTo: isoDay(0) }],
    ['a delivery week', { deliveryFrom: isoDay(-5), deliveryTo: isoDay(2) }],
    ['status and a pickup week', { statuses: ['InTransit'], pickupFrom: isoDay(-7), pickupTo: isoDay(0) }],
    ['status and a delivery week', { statuses: ['Dispatched'], deliveryFrom: isoDay(-5), deliveryTo: isoDay(2) }],
    ['updatedSince and status', { updatedSince: isoDay(-1000), statuses: ['InTransit'] }],
    ['pickupFrom alone', { pickupFrom: isoDay(-3) }],
    ['status=Completed (most of the window, and of the history before it)', { statuses: ['Completed'] }],
    ['status=Cancelled', { statuses: ['Cancelled'] }],
    ['status=InTransit&status=Completed', { statuses: ['InTransit', 'Completed'] }],
    ['status=Completed of a customer whose loads are mostly before the window', { statuses: ['Completed'] }, 'shrunk'],
    ['status=InTransit&status=Completed of that customer', { statuses: ['InTransit', 'Completed'] }, 'shrunk'],
  ];

  it.each(queries)('%s: page 1 and the last page read at most a bounded multiple of page + matches', async (_title, query, customer = 'big') => {
    const scope = scopes.get(customer)!;
    const filters: LoadFilters = { page: 1, pageSize: PAGE_SIZE, ...query };
    const counting = choosePageStatement(scope, { ...filters, page: 2 }, undefined);
    const count = Number((await app.pool.query<{ total_count: string }>(counting.sql, counting.values)).rows[0]!.total_count);
    expect(count).toBeGreaterThan(0);
    const lastPage = Math.max(1, Math.ceil(count / PAGE_SIZE));
    const statements = [
      choosePageStatement(scope, filters, undefined),
      choosePageStatement(scope, { ...filters, page: 2 }, undefined),
      choosePageStatement(scope, filters, count),
      choosePageStatement(scope, { ...filters, page: lastPage }, count),
      choosePageStatement(scope, { ...filters, page: lastPage }, undefined, true),
    ];
    const limit = BOUND * (PAGE_SIZE + count);
    for (const { sql, values } of statements) {
      const read = rowsRead(await planNodes(app.pool, sql, values, 'ANALYZE, FORMAT JSON'));
      expect(read, `${read} rows read for ${count} matches by${sql}`).toBeLessThanOrEqual(limit);
    }
  });

  // A status filter walks each status, a date range its buckets (UTC day and status), each in the feed's
  // order, and takes no more of each than the page needs: a page of 10 of a status's 400 loads, or of a
  // week of some 1,400, reads a bounded multiple of walks x page, not the matches; so does a status in that
  // week, whose loads are a fraction of each day's.
  const weeks: [string, Omit<LoadFilters, 'page' | 'pageSize'>, string | undefined][] = [
    ['status=InTransit (one walk, the status\'s)', { statuses: ['InTransit'] }, undefined],
    ['status=InTransit&status=Dispatched (two walks)', { statuses: ['InTransit', 'Dispatched'] }, undefined],
    ['status=Delivered (some 8,000 loads)', { statuses: ['Delivered'] }, undefined],
    ['a pickup week', { pickupFrom: isoDay(-7), pickupTo: isoDay(0) }, 'scheduled_pickup_date'],
    ['a delivery week', { deliveryFrom: isoDay(-5), deliveryTo: isoDay(2) }, 'scheduled_delivery_date'],
    ['pickupFrom alone, a week back', { pickupFrom: isoDay(-7) }, 'scheduled_pickup_date'],
    ['status and a pickup week', { statuses: ['InTransit'], pickupFrom: isoDay(-7), pickupTo: isoDay(0) }, 'scheduled_pickup_date'],
  ];

  it.each(weeks)('%s, 10 a page: page 1, the page after a load and the last page read O(walks x page), not the matches', async (_title, query, column) => {
    const scope = scopes.get('big')!;
    const pageSize = 10;
    const filters: LoadFilters = { page: 1, pageSize, ...query };
    const counting = choosePageStatement(scope, { ...filters, page: 2 }, undefined);
    const count = Number((await app.pool.query<{ total_count: string }>(counting.sql, counting.values)).rows[0]!.total_count);
    // The walks: a range's buckets, the (UTC day, status) pairs its loads fall in; else one a status.
    const [feed] = feedParameters(scope, filters);
    const buckets =
      column === undefined
        ? filters.statuses!.length
        : (
            await app.pool.query<{ n: number }>(
              `SELECT count(DISTINCT ((l.${column} AT TIME ZONE 'UTC')::date, l.status))::integer AS n FROM feed_loads($1::feed_query) AS l`,
              [feed],
            )
          ).rows[0]!.n;
    expect(count).toBeGreaterThan(BOUND * buckets * pageSize);
    // The pages with the count known (a count's partial days read a day's loads each: the test above).
    const firstPage = choosePageStatement(scope, filters, count);
    const { rows } = await app.pool.query<{ data: string }>(firstPage.sql, firstPage.values);
    const lastOfPage1 = (JSON.parse(rows[0]!.data) as { loadNumber: string }[]).at(-1)!.loadNumber;
    const statements = [
      firstPage,
      choosePageStatement(scope, { ...filters, page: 2 }, count, false, lastOfPage1),
      choosePageStatement(scope, { ...filters, page: Math.ceil(count / pageSize) }, count),
    ];
    expect(statements.map((statement) => statement.kind)).toEqual(['page', 'page', 'page']);
    for (const { sql, values } of statements) {
      const read = rowsRead(await planNodes(app.pool, sql, values, 'ANALYZE, FORMAT JSON'));
      expect(read, `${read} rows read for a page of ${pageSize} of ${count} matches by${sql}`).toBeLessThanOrEqual(BOUND * buckets * pageSize);
    }
  });

  // The count of no filter, statuses and a pickup range reads the counters of its whole days and, of the
  // customer's loads, only those of its partial first and last days and those the horizon leaves out:
  // never the window's (some 26,000 loads here; a partial day holds about 300).
  const countedByCounters: [string, Omit<LoadFilters, 'page' | 'pageSize'>][] = [
    ['no filter', {}],
    ['status=Completed', { statuses: ['Completed'] }],
    ['status=InTransit&status=Completed', { statuses: ['InTransit', 'Completed'] }],
    ['a pickup range with bounds inside days', { pickupFrom: `${isoDay(-200)}T06:30:00.000Z`, pickupTo: `${isoDay(-2)}T17:45:00.000Z` }],
    ['pickupTo alone, at midnight', { pickupTo: `${isoDay(-3)}T00:00:00.000Z` }],
    ['status and a pickup range', { statuses: ['Delivered'], pickupFrom: isoDay(-300), pickupTo: `${isoDay(-1)}T12:00:00.000Z` }],
  ];

  it.each(countedByCounters)('%s: the count reads the counters, not the customer\'s loads', async (_title, query) => {
    const scope = scopes.get('big')!;
    const filters: LoadFilters = { page: 2, pageSize: PAGE_SIZE, ...query };
    const counting = choosePageStatement(scope, filters, undefined);
    expect(counting.sql).toBe(COUNTERS_COUNT_SQL);
    const nodes = (await planNodes(app.pool, counting.sql, feedParameters(scope, filters), 'ANALYZE, FORMAT JSON')) as AnalyzedNode[];
    const loadsRead = rowsRead(nodes.filter((node) => node['Relation Name'] === 'loads'));
    expect(nodes.some((node) => node['Relation Name'] === 'feed_counts'), 'reads feed_counts').toBe(true);
    expect(loadsRead, `${loadsRead} loads read by the count`).toBeLessThanOrEqual(1_000);
  });
});
