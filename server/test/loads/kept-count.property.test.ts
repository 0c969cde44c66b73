// A totalCount served through the count cache (count-cache.ts) is exact across feed versions: whatever
// writes come between requests (inserts, status and pickup changes, loads moved between customers,
// deletes, updates that move no count, folds of the counters' changes), every page's totalCount is the
// count of the page's query at that moment, whether the request counted (from the counters or the rows),
// reused a count kept at its version, or found the kept count stale after a write and counted again.
import fc from 'fast-check';
import { feedWindowStart, type LoadPage, type LoadStatus } from '@loadfeed/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadFilters } from '../../src/loads/list-query.js';
import { COUNT_SQL } from '../../src/loads/list-statements.js';
import { feedParameters } from '../../src/loads/list.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, testClock, type TestApp } from '../support/app.js';

const STATUSES: LoadStatus[] = ['Available', 'Covered', 'InTransit', 'Delivered'];
const NOW = Date.parse('2026-06-15T12:00:00.000Z');
const DAY = 86_400_000;
/** The queries a run asks, each many times: a count is kept for a query and met again after writes. */
const QUERIES = 2;

const pickupArbitrary = fc
  .record({ day: fc.integer({ min: -370, max: 5 }), minute: fc.oneof(fc.constant(0), fc.nat(1439)) })
  .map(({ day, minute }) => new Date(Date.UTC(2026, 5, 15) + day * DAY + minute * 60_000).toISOString());

type Step =
  | { kind: 'insert'; customer: number; status: LoadStatus; pickup: string }
  | { kind: 'status'; load: number; status: LoadStatus }
  | { kind: 'pickup'; load: number; pickup: string }
  | { kind: 'move'; load: number; customer: number }
  | { kind: 'delete'; load: number }
  | { kind: 'untouched'; load: number }
  | { kind: 'fold' }
  | { kind: 'request'; query: number; page: number };

/** A request's query: the counters' filters, and now and then one counted by its rows. */
const queryArbitrary = fc
  .record(
    {
      status: fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 2 }),
      pickupFrom: pickupArbitrary,
      pickupTo: pickupArbitrary,
      updatedSince: fc.constant('2020-01-01T00:00:00.000Z'),
    },
    { requiredKeys: [] },
  )
  .map(({ status, ...bounds }) =>
    [...(status ?? []).map((value) => `status=${value}`), ...Object.entries(bounds).map(([name, value]) => `${name}=${encodeURIComponent(value)}`)].join('&'),
  );

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), customer: fc.nat(1), status: fc.constantFrom(...STATUSES), pickup: pickupArbitrary }),
  fc.record({ kind: fc.constant('status' as const), load: fc.nat(40), status: fc.constantFrom(...STATUSES) }),
  fc.record({ kind: fc.constant('pickup' as const), load: fc.nat(40), pickup: pickupArbitrary }),
  fc.record({ kind: fc.constant('move' as const), load: fc.nat(40), customer: fc.nat(1) }),
  fc.record({ kind: fc.constant('delete' as const), load: fc.nat(40) }),
  fc.record({ kind: fc.constant('untouched' as const), load: fc.nat(40) }),
  fc.constant({ kind: 'fold' as const }),
  fc.record({ kind: fc.constant('request' as const), query: fc.nat(QUERIES - 1), page: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('request' as const), query: fc.nat(QUERIES - 1), page: fc.integer({ min: 1, max: 3 }) }),
);

describe('a count kept across feed versions', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;
  let psql: pg.Client;
  let customerIds: string[];
  let inserted = 0;

  beforeAll(async () => {
    app = await startApp(database.url, { clock: testClock(new Date(NOW)) });
    await app.customer('kept-0');
    await app.customer('kept-1');
    key = (await app.key('kept-0')).key;
    customerIds = (await app.pool.query<{ id: string }>(`SELECT id::text FROM customers WHERE code LIKE 'kept-%' ORDER BY code`)).rows.map((row) => row.id);
    psql = new pg.Client({ connectionString: database.url });
    await psql.connect();
  });
  afterAll(async () => {
    await psql?.end();
    await app?.close();
  });

  /** The count of the request's query over every committed load (all settled): COUNT_SQL, count(*) of feed_loads. */
  async function truth(query: string): Promise<number> {
    const params = new URLSearchParams(query);
    const filters: LoadFilters = {
      page: 1,
      pageSize: 1,
      ...(params.getAll('status').length > 0 ? { statuses: params.getAll('status') as LoadStatus[] } : {}),
      ...(params.get('pickupFrom') ? { pickupFrom: params.get('pickupFrom')! } : {}),
      ...(params.get('pickupTo') ? { pickupTo: params.get('pickupTo')! } : {}),
      ...(params.get('updatedSince') ? { updatedSince: params.get('updatedSince')! } : {}),
    };
    const scope = { customerId: customerIds[0]!, windowStart: feedWindowStart(new Date(NOW)), settledThrough: '9999-01-01T00:00:00.000Z' };
    return Number((await psql.query<{ total_count: string }>(COUNT_SQL, feedParameters(scope, filters))).rows[0]!.total_count);
  }

  async function loadId(position: number): Promise<string | null> {
    const ids = (await psql.query<{ id: string }>('SELECT id::text FROM loads ORDER BY id')).rows;
    return ids.length === 0 ? null : ids[position % ids.length]!.id;
  }

  async function run(step: Exclude<Step, { kind: 'request' }>): Promise<void> {
    if (step.kind === 'fold') {
      await psql.query('SELECT fold_feed_counts()');
      return;
    }
    if (step.kind === 'insert') {
      inserted += 1;
      await psql.query('INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date) VALUES ($1, $2, $3, $4)', [customerIds[step.customer], `K-${inserted}`, step.status, step.pickup]);
    } else {
      const id = await loadId(step.load);
      if (id === null) return;
      if (step.kind === 'status') await psql.query('UPDATE loads SET status = $2 WHERE id = $1', [id, step.status]);
      if (step.kind === 'pickup') await psql.query('UPDATE loads SET scheduled_pickup_date = $2 WHERE id = $1', [id, step.pickup]);
      if (step.kind === 'move') await psql.query('UPDATE loads SET customer_id = $2 WHERE id = $1', [id, customerIds[step.customer]]);
      if (step.kind === 'delete') await psql.query('DELETE FROM loads WHERE id = $1', [id]);
      if (step.kind === 'untouched') await psql.query(`UPDATE loads SET po_number = coalesce(po_number, '') || 'x' WHERE id = $1`, [id]);
    }
    // Settled: the horizon passes a stamp once the database's clock has moved past it.
    await nextDatabaseMillisecond(psql);
  }

  it('serves every request the exact count of its query, counted or kept', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(queryArbitrary, { minLength: QUERIES, maxLength: QUERIES }), fc.array(stepArbitrary, { minLength: 4, maxLength: 30 }), async (queries, steps) => {
        await psql.query('TRUNCATE loads');
        for (let n = 0; n < 12; n += 1) await run({ kind: 'insert', customer: n % 2, status: STATUSES[n % STATUSES.length]!, pickup: new Date(NOW - n * 20 * DAY).toISOString() });
        for (const step of steps) {
          if (step.kind !== 'request') {
            await run(step);
            continue;
          }
          // Twice: the second is served from the count the first kept, at the same version.
          const query = queries[step.query]!;
          for (let time = 0; time < 2; time += 1) {
            const response = await app.get(`/api/v1/loads?pageSize=2&page=${step.page}${query ? `&${query}` : ''}`, key);
            expect(response.statusCode, response.payload).toBe(200);
            expect({ query, totalCount: (JSON.parse(response.payload) as LoadPage).totalCount }).toEqual({ query, totalCount: await truth(query) });
          }
        }
      }),
      { numRuns: Number(process.env.KEPT_COUNT_RUNS ?? 40) },
    );
  }, 300_000);
});
