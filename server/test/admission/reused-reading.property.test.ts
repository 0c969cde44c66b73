import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitRequest } from '../../src/admission/admit-request.js';
import { addCustomer } from '../../src/customers.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createKey } from '../../src/admission/keys.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

// sql/functions/admit_request.sql: the horizon may come from the last stored reading of the feed's
// writers (at most 50 ms old) instead of a fresh reading of pg_locks. Each run reuses readings for 50 ms,
// as the server does, or for an hour (the setting loadfeed.reading_reused_for), so that writes land
// between a reading and the admissions that reuse it however slowly this machine runs the steps. Whatever writers do around the
// admissions (in flight, committed, rolled back, of one customer or of every customer), a page read at
// the admission's horizon must hold every row a fresh reading's horizon would show at that moment, no row
// that a writer still in flight commits later at or before it, and its horizon must lag by at most the
// reading's age. Writers only insert, so a row once stamped keeps its stamp and the final table is the truth.

const CUSTOMERS = ['a', 'b'];
/** Customers a writer of every customer writes first: past the 16 it announces one by one, it holds every
 * feed back with one lock, and then writes the customers above without announcing them one by one. */
const MANY = 17;
const WRITERS = 3;

type Step =
  | { kind: 'write'; writer: number; customer: number; alone: boolean }
  | { kind: 'write every customer'; writer: number }
  | { kind: 'end'; writer: number; commits: boolean }
  | { kind: 'admit'; customer: number }
  | { kind: 'another request reads the writers' }
  | { kind: 'clock'; ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), writer: fc.nat(WRITERS - 1), customer: fc.nat(CUSTOMERS.length - 1), alone: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('write every customer' as const), writer: fc.nat(WRITERS - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('end' as const), writer: fc.nat(WRITERS - 1), commits: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('admit' as const), customer: fc.nat(CUSTOMERS.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('another request reads the writers' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.integer({ min: 1, max: 8 }) }) },
);

interface Admitted {
  customer: number;
  horizon: string;
  page: string[];
}

describe('the horizon from a stored reading of the feed writers', () => {
  const database = useTestDatabase();
  let pool: pg.Pool;
  let observer: pg.Client;
  const writers: pg.Client[] = [];
  const keys: string[] = [];
  const customerIds: string[] = [];
  let loadNumber = 0;

  beforeAll(async () => {
    await migrate(database.url);
    pool = createPool(database.url, { max: 1 });
    for (const code of CUSTOMERS) {
      await addCustomer(pool, code);
      customerIds.push((await pool.query<{ id: string }>('SELECT id::text FROM customers WHERE code = $1::text', [code])).rows[0]!.id);
      keys.push((await createKey(pool, code, { rateLimit: 2_000_000_000 })).key);
    }
    for (let index = 1; index <= MANY; index += 1) await addCustomer(pool, `many${index}`);
    observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    for (let index = 0; index < WRITERS; index += 1) {
      const writer = new pg.Client({ connectionString: database.url });
      await writer.connect();
      writers.push(writer);
    }
  });
  afterAll(async () => {
    await Promise.all(writers.map((writer) => writer.end()));
    await observer?.end();
    await pool?.end();
  });

  /** The rows of the customer at or before `horizon`, in a snapshot taken now. */
  async function pageAt(customer: number, horizon: string): Promise<string[]> {
    const { rows } = await observer.query<{ load_number: string }>(
      'SELECT load_number FROM loads WHERE customer_id = $1::bigint AND updated_at <= $2::timestamptz ORDER BY load_number',
      [customerIds[customer], horizon],
    );
    return rows.map((row) => row.load_number);
  }

  /**
   * The horizon a fresh reading of pg_locks gives the customer now (feed_settled_through's arithmetic), as
   * of the admission's clock reading `countedAt`: read a millisecond later, a fresh reading's own clock
   * would settle the millisecond the admission was counted in, and with it a row stamped in that
   * millisecond before the admission, which the admission rightly left to the next request.
   */
  async function freshHorizon(customer: number, countedAt: Date): Promise<string> {
    const { rows } = await observer.query<{ horizon: string }>(
      `SELECT (least(r.now_ms, $2::timestamptz, (SELECT min(f.first_stamp) FROM feed_writers(r.now_ms) AS f
                                 WHERE f.slot IN (feed_writer_slot($1::bigint), 65535))) - interval '1 millisecond')::text AS horizon
         FROM (SELECT date_trunc('milliseconds', clock_timestamp()) AS now_ms) AS r`,
      [customerIds[customer], countedAt],
    );
    return rows[0]!.horizon;
  }

  async function waitForClock(ms: number): Promise<void> {
    const { rows } = await observer.query<{ at: string }>(`SELECT (clock_timestamp() + $1::integer * interval '1 millisecond')::text AS at`, [ms]);
    for (;;) {
      const passed = await observer.query<{ passed: boolean }>('SELECT clock_timestamp() >= $1::timestamptz AS passed', [rows[0]!.at]);
      if (passed.rows[0]!.passed) return;
    }
  }

  /** Runs the steps, checking each admission as it comes, then checks every page against the final table. */
  async function run(steps: Step[], finalCommits: boolean[], reusedForMs: number, tally: { reused: number; fresh: number }): Promise<void> {
    await pool.query(`SELECT set_config('loadfeed.reading_reused_for', $1::text, false)`, [`${reusedForMs} milliseconds`]);
    const open = writers.map(() => false);
    const admitted: Admitted[] = [];
    const begin = async (writer: number) => {
      if (!open[writer]) await writers[writer]!.query('BEGIN');
      open[writer] = true;
    };
    try {
      for (const step of steps) {
        if (step.kind === 'write') {
          // A writer with no transaction open writes `alone`: one statement, committed at once.
          if (!step.alone) await begin(step.writer);
          loadNumber += 1;
          await writers[step.writer]!.query(
            `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date) VALUES ($1::bigint, $2::text, 'Available', timestamptz '2026-06-01T08:00:00Z')`,
            [customerIds[step.customer], `L${loadNumber}`],
          );
        } else if (step.kind === 'write every customer') {
          await begin(step.writer);
          loadNumber += 1;
          await writers[step.writer]!.query(
            `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
             SELECT c.id, 'M${loadNumber}-' || c.code, 'Available', timestamptz '2026-06-01T08:00:00Z' FROM customers AS c ORDER BY c.code LIKE 'many%' DESC, c.id`,
          );
        } else if (step.kind === 'end') {
          if (open[step.writer]) await writers[step.writer]!.query(step.commits ? 'COMMIT' : 'ROLLBACK');
          open[step.writer] = false;
        } else if (step.kind === 'another request reads the writers') {
          // Stores a fresh reading when the stored one is more than 5 ms old, as a request's fresh reading does.
          await observer.query('SELECT feed_writers_reading()');
        } else if (step.kind === 'clock') {
          await waitForClock(step.ms);
        } else {
          const admission = (await admitRequest(pool, keys[step.customer]!, 10))!;
          const horizon = admission.settledThrough;
          const page = await pageAt(step.customer, horizon);
          const freshAt = await freshHorizon(step.customer, admission.decision.countedAt);
          const freshPage = await pageAt(step.customer, freshAt);
          const reading = (await observer.query<{ read_at: Date; dear: boolean }>(`SELECT read_at, cost >= interval '1 millisecond' AS dear FROM feed_writers_reading`)).rows[0];
          const stored = reading?.read_at;
          // As fresh as a fresh reading: nothing commits between the admission and these reads. But for a
          // reading that was dear (pg_locks took 1 ms or more, as on a loaded machine), which every request
          // reuses for 5 ms whatever committed since (feed_writers_reading.sql): a horizon from it may miss
          // the rows stamped after it, never include one still to be committed (checked at the end).
          const fromDearReading = reading?.dear === true && reading.read_at.getTime() - 1 === Date.parse(horizon);
          if (!fromDearReading) expect(freshPage.filter((load) => !page.includes(load))).toEqual([]);
          // Lags by at most the stored reading's age, or as a fresh reading does (a writer in flight).
          const countedAt = admission.decision.countedAt.getTime();
          expect(Date.parse(horizon)).toBeGreaterThanOrEqual(Math.min(Date.parse(freshAt), countedAt - reusedForMs - 1));
          // A fresh reading is taken after the window's clock, a stored one before it.
          if (stored && stored.getTime() - 1 === Date.parse(horizon) && stored.getTime() < countedAt) tally.reused += 1;
          else tally.fresh += 1;
          admitted.push({ customer: step.customer, horizon, page });
        }
      }
    } finally {
      for (const [writer, isOpen] of open.entries()) {
        if (isOpen) await writers[writer]!.query(finalCommits[writer] ? 'COMMIT' : 'ROLLBACK');
      }
    }
    // Safe: whatever committed after an admission is stamped after its horizon.
    for (const { customer, horizon, page } of admitted) expect(await pageAt(customer, horizon)).toEqual(page);
  }

  it("serves every row a fresh reading would, never a row still to be committed at or before its horizon, and lags by at most the reading's age", async () => {
    const tally = { reused: 0, fresh: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: WRITERS, maxLength: WRITERS }),
        fc.constantFrom(50, 3_600_000),
        (steps, finalCommits, reusedForMs) => run(steps, finalCommits, reusedForMs, tally),
      ),
      { numRuns: 100 },
    );
    // Both ways of fixing the horizon were exercised.
    expect(tally.reused).toBeGreaterThan(0);
    expect(tally.fresh).toBeGreaterThan(0);
  }, 240_000);
});
