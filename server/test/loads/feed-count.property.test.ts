// The counters' count (sql/functions/feed_count.sql, read by the statements of count-statements.ts) is
// exactly count(*) of the page's own query, feed_loads($1), in one snapshot, whatever has written: random
// inserts, upserts, status and pickup changes (across UTC days and within one), loads moved to another
// customer, deletes, updates that move no count, TRUNCATE, folds of the changes, recounts, writes in
// replica mode (as logical replication's apply worker writes: row triggers count them, not statement
// triggers), and writers held open (uncommitted) across the counts, then committed or rolled back. Each
// count is checked inside one REPEATABLE READ transaction, both statements in its snapshot, with a write
// committed between them; for no filter, status sets, pickup ranges whose bounds fall on midnight or
// inside a day, both, and settled horizons that leave out the latest stamps.
import fc from 'fast-check';
import pg from 'pg';
import type { LoadStatus } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTERS_COUNT_SQL, countedByCounters } from '../../src/loads/count-statements.js';
import type { LoadFilters } from '../../src/loads/list-query.js';
import { COUNT_SQL } from '../../src/loads/list-statements.js';
import { feedParameters } from '../../src/loads/list.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

const STATUSES: LoadStatus[] = ['Available', 'Covered', 'InTransit', 'Delivered', 'Cancelled'];
const CUSTOMERS = 3;
/** The window starts at midnight UTC of this day; pickups fall from 3 days before it to 6 after. */
const WINDOW_START = Date.parse('2026-06-10T00:00:00.000Z');
const DAY = 86_400_000;
/** Loads each run starts with: a few a customer and day, so that a range's partial days hold some. */
const LOADS = 72;

/** A pickup instant: a day around the window's start and a minute of it (0: midnight exactly). */
const pickupArbitrary = fc
  .record({
    day: fc.integer({ min: -3, max: 6 }),
    // Midnight, the day's last minute, either side of noon (where a bound is rounded the other way), and
    // minutes through the day: fast-check's own draws of nat(1439) lean to the first minutes.
    minute: fc.oneof(fc.constant(0), fc.constant(1439), fc.constantFrom(719, 720, 721), fc.integer({ min: 0, max: 23 }).map((hour) => hour * 60 + 17)),
  })
  .map(({ day, minute }) => new Date(WINDOW_START + day * DAY + minute * 60_000).toISOString());

type Write = (
  | { kind: 'insert'; customer: number; status: LoadStatus; pickup: string; copies: number }
  | { kind: 'upsert'; customer: number; loadNumber: number; status: LoadStatus; pickup: string }
  | { kind: 'status'; load: number; status: LoadStatus }
  | { kind: 'pickup'; load: number; pickup: string | null }
  | { kind: 'move'; load: number; customer: number }
  | { kind: 'delete'; load: number; loads: number }
  | { kind: 'untouched'; load: number }
  | { kind: 'truncate' }
) & {
  /** Written in session_replication_role replica, as logical replication's apply worker writes: row triggers count it. */
  replica: boolean;
};

const writeKindArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), customer: fc.nat(CUSTOMERS - 1), status: fc.constantFrom(...STATUSES), pickup: pickupArbitrary, copies: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('upsert' as const), customer: fc.nat(CUSTOMERS - 1), loadNumber: fc.nat(LOADS * 2), status: fc.constantFrom(...STATUSES), pickup: pickupArbitrary }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('status' as const), load: fc.nat(LOADS * 2), status: fc.constantFrom(...STATUSES) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pickup' as const), load: fc.nat(LOADS * 2), pickup: fc.option(pickupArbitrary, { freq: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), load: fc.nat(LOADS * 2), customer: fc.nat(CUSTOMERS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), load: fc.nat(LOADS * 2), loads: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('untouched' as const), load: fc.nat(LOADS * 2) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'truncate' as const }) },
);

const writeArbitrary: fc.Arbitrary<Write> = fc
  .tuple(writeKindArbitrary, fc.nat(3).map((draw) => draw === 0))
  .map(([write, replica]) => ({ ...write, replica }) as Write);

/** A filter the counters answer: statuses, a pickup range, both or none. */
const filtersArbitrary: fc.Arbitrary<Omit<LoadFilters, 'page' | 'pageSize'>> = fc.record(
  {
    statuses: fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 3 }),
    pickupFrom: pickupArbitrary,
    pickupTo: pickupArbitrary.map((instant) => new Date(Date.parse(instant) - 1).toISOString()),
  },
  { requiredKeys: [] },
);

/** Which writer runs a write: committed at once, or one of two transactions held open across the counts. */
type Writer = 'autocommit' | 0 | 1;

type Step =
  | { kind: 'write'; writer: Writer; write: Write }
  | { kind: 'end'; writer: 0 | 1; commit: boolean }
  | { kind: 'fold'; recount: boolean }
  | {
      kind: 'count';
      customer: number;
      filters: Omit<LoadFilters, 'page' | 'pageSize'>;
      /** The horizon: far ahead (every row settled), or a row's stamp, or just before one. */
      horizon: { row: number; before: boolean } | null;
      /** A write committed between the two statements of the snapshot. */
      between: Write | null;
    };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), writer: fc.constantFrom<Writer>('autocommit', 'autocommit', 0, 1), write: writeArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), writer: fc.constantFrom<0 | 1>(0, 1), commit: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fold' as const), recount: fc.nat(3).map((draw) => draw === 0) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('count' as const),
      customer: fc.nat(CUSTOMERS - 1),
      filters: filtersArbitrary,
      horizon: fc.option(fc.record({ row: fc.nat(LOADS * 2), before: fc.boolean() }), { freq: 2 }),
      between: fc.option(writeArbitrary, { freq: 2 }),
    }),
  },
);

describe('the counters count exactly what the page query holds', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let customerIds: string[];
  let autocommit: pg.Client;
  let reader: pg.Client;
  let held: pg.Client[];

  beforeAll(async () => {
    app = await startApp(database.url);
    for (let n = 0; n < CUSTOMERS; n += 1) await app.customer(`count-${n}`);
    customerIds = (await app.pool.query<{ id: string }>(`SELECT id::text FROM customers WHERE code LIKE 'count-%' ORDER BY code`)).rows.map((row) => row.id);
    const connect = async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      // A write that would wait for a held writer's row gives up instead: the test never blocks on itself.
      await client.query(`SET lock_timeout = '100ms'`);
      return client;
    };
    [autocommit, reader, ...held] = await Promise.all([connect(), connect(), connect(), connect()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([autocommit, reader, ...(held ?? [])].map((client) => client?.end()));
    await app?.close();
  });

  /** A load's id by its position among the ids (wrapping), or null when there is none. */
  async function loadId(client: pg.Client, position: number): Promise<string | null> {
    const ids = (await client.query<{ id: string }>('SELECT id::text FROM loads ORDER BY id')).rows;
    return ids.length === 0 ? null : ids[position % ids.length]!.id;
  }

  let inserted = 0;
  async function run(client: pg.Client, write: Write): Promise<void> {
    const customerOf = (n: number) => customerIds[n]!;
    if (write.kind === 'insert') {
      inserted += write.copies;
      await client.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
         SELECT $1, 'L-' || n, $3, $4 FROM generate_series($2::int - $5::int + 1, $2::int) AS n`,
        [customerOf(write.customer), inserted, write.status, write.pickup, write.copies],
      );
      return;
    }
    if (write.kind === 'upsert') {
      await client.query(
        `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date) VALUES ($1, $2, $3, $4)
         ON CONFLICT (customer_id, load_number) DO UPDATE SET status = excluded.status, scheduled_pickup_date = excluded.scheduled_pickup_date`,
        [customerOf(write.customer), `L-${write.loadNumber}`, write.status, write.pickup],
      );
      return;
    }
    if (write.kind === 'truncate') {
      await client.query('TRUNCATE loads');
      return;
    }
    const id = await loadId(client, write.load);
    if (id === null) return;
    const statements: Record<Exclude<Write['kind'], 'insert' | 'upsert' | 'truncate'>, [string, unknown[]]> = {
      status: ['UPDATE loads SET status = $2 WHERE id = $1', [id, (write as { status?: LoadStatus }).status]],
      pickup: ['UPDATE loads SET scheduled_pickup_date = $2 WHERE id = $1', [id, (write as { pickup?: string | null }).pickup]],
      move: ['UPDATE loads SET customer_id = $2 WHERE id = $1', [id, customerOf((write as { customer?: number }).customer ?? 0)]],
      delete: ['DELETE FROM loads WHERE id >= $1 AND id < $1::bigint + $2::int', [id, (write as { loads?: number }).loads ?? 1]],
      untouched: [`UPDATE loads SET po_number = coalesce(po_number, '') || 'x' WHERE id = $1`, [id]],
    };
    const [sql, values] = statements[write.kind];
    await client.query(sql, values);
  }

  /** Runs a write; one that a held writer's lock refuses, or that a held writer cannot make, is dropped. */
  async function attempt(client: pg.Client, write: Write, inTransaction: boolean): Promise<void> {
    if (write.replica) await client.query('SET session_replication_role = replica');
    if (inTransaction) await client.query('SAVEPOINT w');
    try {
      await run(client, write);
      if (inTransaction) await client.query('RELEASE SAVEPOINT w');
    } catch (error) {
      const code = (error as { code?: string }).code;
      // 55P03: lock not available; 40P01: deadlock; 23505: a move onto a loadNumber the customer has.
      if (!['55P03', '40P01', '23505'].includes(code ?? '')) throw error;
      if (inTransaction) await client.query('ROLLBACK TO SAVEPOINT w');
    } finally {
      if (write.replica) await client.query('SET session_replication_role = origin');
    }
  }

  const open = new Set<number>();

  async function count(step: Extract<Step, { kind: 'count' }>): Promise<void> {
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      let settledThrough = '9999-01-01T00:00:00.000Z';
      if (step.horizon) {
        const id = await loadId(reader, step.horizon.row);
        if (id !== null) {
          const stamp = (await reader.query<{ at: Date }>('SELECT updated_at AS at FROM loads WHERE id = $1', [id])).rows[0]!.at;
          settledThrough = new Date(stamp.getTime() - (step.horizon.before ? 1 : 0)).toISOString();
        }
      }
      const filters: LoadFilters = { page: 1, pageSize: 10, ...step.filters };
      expect(countedByCounters(filters)).toBe(true);
      const values = feedParameters({ customerId: customerIds[step.customer]!, windowStart: new Date(WINDOW_START), settledThrough }, filters);
      const byCounters = (await reader.query<{ total_count: string }>(COUNTERS_COUNT_SQL, values)).rows[0]!.total_count;
      if (step.between) await attempt(autocommit, step.between, false);
      const byRows = (await reader.query<{ total_count: string }>(COUNT_SQL, values)).rows[0]!.total_count;
      expect({ filters, settledThrough, count: byCounters }).toEqual({ filters, settledThrough, count: byRows });
    } finally {
      await reader.query('ROLLBACK');
    }
  }

  async function reset(): Promise<void> {
    for (const writer of open) await held[writer]!.query('ROLLBACK');
    open.clear();
    await autocommit.query('TRUNCATE loads');
    await autocommit.query('SELECT fold_feed_counts()');
    for (let n = 0; n < LOADS; n += 1) {
      const pickup = new Date(WINDOW_START + ((n % 10) - 3) * DAY + ((n * 97) % 1440) * 60_000).toISOString();
      await run(autocommit, { kind: 'insert', customer: n % CUSTOMERS, status: STATUSES[n % STATUSES.length]!, pickup, copies: 1, replica: false });
    }
  }

  it('for random writers, movers, deleters, held transactions, folds and filters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 5, maxLength: 40 }), async (steps) => {
        await reset();
        try {
          for (const step of steps) {
            if (step.kind === 'write') {
              // A TRUNCATE held open would hold the reader back: TRUNCATE commits at once, when no writer is open.
              if (step.writer === 'autocommit' || step.write.kind === 'truncate') {
                await attempt(autocommit, step.write, false);
              } else {
                if (!open.has(step.writer)) await held[step.writer]!.query('BEGIN');
                open.add(step.writer);
                await attempt(held[step.writer]!, step.write, true);
              }
            } else if (step.kind === 'end') {
              if (open.delete(step.writer)) await held[step.writer]!.query(step.commit ? 'COMMIT' : 'ROLLBACK');
            } else if (step.kind === 'fold') {
              // A recount waits for the held writers (its lock of loads): past the lock timeout, it is dropped.
              await autocommit.query(step.recount ? 'SELECT recount_feed_loads()' : 'SELECT fold_feed_counts()').catch((error: { code?: string }) => {
                if (error.code !== '55P03') throw error;
              });
            } else {
              await count(step);
            }
          }
          // Every writer ends; the counts still hold after the last fold.
          for (const writer of [...open]) await held[writer]!.query('COMMIT');
          open.clear();
          await autocommit.query('SELECT fold_feed_counts()');
          for (let customer = 0; customer < CUSTOMERS; customer += 1) await count({ kind: 'count', customer, filters: {}, horizon: null, between: null });
        } finally {
          for (const writer of open) await held[writer]!.query('ROLLBACK');
          open.clear();
        }
      }),
      { numRuns: Number(process.env.FEED_COUNT_RUNS ?? 60) },
    );
  }, 300_000);
});
