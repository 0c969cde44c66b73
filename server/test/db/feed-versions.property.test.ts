import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';

// sql/functions/bump_feed_versions.sql and feed_version_event_wanted.sql: a transaction that changes a
// customer's loads moves the customer's feed version at commit, with a latest stamp at or after every
// stamp it wrote (the count cache keeps a count while the version stays, src/loads/count-cache.ts), and
// moves no other customer's. The triggers queue a deferred event only for the first row of each run of a
// customer's rows; random transactions of inserts, changed and unchanged updates, deletes, loads moved
// between customers, savepoints rolled back or released and `SET CONSTRAINTS ... IMMEDIATE` must still
// leave every changed customer's version moved, compared with the rows the database holds.

const CUSTOMERS = 3;
/** Customers a writer of every customer writes: past the 16 it announces one by one (announce_feed_writer). */
const MANY = 20;

type Step =
  | { kind: 'insert'; customer: number; rows: number }
  | { kind: 'update'; customer: number; nth: number; changes: boolean }
  | { kind: 'delete'; customer: number; nth: number }
  | { kind: 'move'; customer: number; to: number; nth: number }
  | { kind: 'insert existing, do nothing'; customer: number }
  | { kind: 'savepoint' }
  | { kind: 'rollback to savepoint' }
  | { kind: 'release savepoint' }
  | { kind: 'constraints'; immediate: boolean }
  | { kind: 'a millisecond passes' }
  | { kind: 'write every customer' }
  | { kind: 'fire, then insert two rows a pause apart'; customer: number };

const customer = fc.nat(CUSTOMERS - 1);
const nth = fc.nat(4);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), customer, rows: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), customer, nth, changes: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), customer, nth }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('move' as const), customer, to: customer, nth }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert existing, do nothing' as const), customer }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('savepoint' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback to savepoint' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release savepoint' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('constraints' as const), immediate: fc.boolean() }) },
  // Stamps are milliseconds: without a pause, a bump and the writes after it may share one.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('a millisecond passes' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('write every customer' as const) }) },
  // The queued events fired, then at once (in the same millisecond, nearly always) one statement's two rows,
  // the second 2 ms after the first: its run's one event carries the first row's stamp, the second's is later.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fire, then insert two rows a pause apart' as const), customer }) },
);

/** Each customer's loads as text (every column), and its feed version and latest stamp. */
const STATE_SQL = `
SELECT c.id::text AS id,
       coalesce((SELECT string_agg(l::text, E'\\n' ORDER BY l.id) FROM loads AS l WHERE l.customer_id = c.id), '') AS rows,
       (SELECT max(l.updated_at) FROM loads AS l WHERE l.customer_id = c.id) AS newest_stamp,
       coalesce(v.version, 0)::text AS version, v.latest_updated_at AS latest
  FROM customers AS c LEFT JOIN customer_feed_versions AS v ON v.customer_id = c.id
 ORDER BY c.id`;

interface CustomerState {
  id: string;
  rows: string;
  newest_stamp: Date | null;
  version: string;
  latest: Date | null;
}

/** The nth load of a customer, by id (none when it has fewer). */
const NTH_LOAD = `(SELECT id FROM loads WHERE customer_id = $1::bigint ORDER BY id OFFSET $2::integer LIMIT 1)`;

describe('feed versions moved at commit by one event per run of a customer', () => {
  const database = useTestDatabase();
  let client: pg.Client;
  let ids: string[] = [];
  let loadNumber = 0;

  const state = async (): Promise<CustomerState[]> => (await client.query<CustomerState>(STATE_SQL)).rows;
  const insert = (customerId: string, rows: number) =>
    client.query(
      `INSERT INTO loads (customer_id, load_number, status) SELECT $1::bigint, 'V-' || ($2::integer + g), 'Available' FROM generate_series(1, $3::integer) AS g`,
      [customerId, loadNumber, rows],
    ).then(() => void (loadNumber += rows));

  beforeAll(async () => {
    await migrate(database.url);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // One customer more than the steps write one by one: its version moves only with a writer of every
    // customer. Then the customers that writer writes.
    await client.query(`INSERT INTO customers (code, name) SELECT 'v' || g, 'V ' || g FROM generate_series(1, $1::integer) AS g`, [CUSTOMERS + 1 + MANY]);
    ids = (await client.query<{ id: string }>('SELECT c.id::text AS id FROM customers AS c ORDER BY c.id')).rows.map((row) => row.id);
    for (const id of ids) await insert(id, 1);
  });
  afterAll(async () => {
    await client?.end();
  });

  async function run(step: Step, savepoints: { depth: number }): Promise<void> {
    switch (step.kind) {
      case 'insert':
        return insert(ids[step.customer]!, step.rows);
      case 'update':
        await client.query(
          `UPDATE loads SET po_number = ${step.changes ? "coalesce(po_number, '') || 'x'" : 'po_number'} WHERE id = ${NTH_LOAD}`,
          [ids[step.customer], step.nth],
        );
        return;
      case 'delete':
        await client.query(`DELETE FROM loads WHERE id = ${NTH_LOAD}`, [ids[step.customer], step.nth]);
        return;
      case 'move':
        await client.query(`UPDATE loads SET customer_id = $3::bigint WHERE id = ${NTH_LOAD}`, [ids[step.customer], step.nth, ids[step.to]]);
        return;
      case 'insert existing, do nothing':
        await client.query(
          `INSERT INTO loads (customer_id, load_number, status) SELECT customer_id, load_number, status FROM loads WHERE customer_id = $1::bigint
               ON CONFLICT (customer_id, load_number) DO NOTHING`,
          [ids[step.customer]],
        );
        return;
      case 'savepoint':
        savepoints.depth += 1;
        await client.query(`SAVEPOINT s${savepoints.depth}`);
        return;
      case 'rollback to savepoint':
        if (savepoints.depth === 0) return;
        await client.query(`ROLLBACK TO SAVEPOINT s${savepoints.depth}`);
        await client.query(`RELEASE SAVEPOINT s${savepoints.depth}`);
        savepoints.depth -= 1;
        return;
      case 'release savepoint':
        if (savepoints.depth === 0) return;
        await client.query(`RELEASE SAVEPOINT s${savepoints.depth}`);
        savepoints.depth -= 1;
        return;
      case 'constraints':
        await client.query(`SET CONSTRAINTS ALL ${step.immediate ? 'IMMEDIATE' : 'DEFERRED'}`);
        return;
      case 'a millisecond passes':
        await client.query('SELECT pg_sleep(0.002)');
        return;
      case 'fire, then insert two rows a pause apart':
        // One statement, so that nothing but the server's own work comes between the firing and the first row.
        await client.query(`DO $$ BEGIN
          SET CONSTRAINTS ALL IMMEDIATE;
          INSERT INTO loads (customer_id, load_number, status)
          SELECT ${Number(ids[step.customer])}, 'V-' || (${loadNumber} + g), CASE WHEN g = 1 THEN 'Available' ELSE (SELECT 'Available' FROM pg_sleep(0.002)) END::load_status
            FROM generate_series(1, 2) AS g;
        END $$`);
        loadNumber += 2;
        return;
      case 'write every customer':
        for (const id of ids.slice(CUSTOMERS + 1)) await client.query(`UPDATE loads SET po_number = coalesce(po_number, '') || 'm' WHERE id = ${NTH_LOAD}`, [id, 0]);
        return;
    }
  }

  it('moves the version of every customer whose loads changed, at or after their newest stamp, and of no customer left alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 14 }), fc.boolean(), async (steps, commits) => {
        const before = await state();
        await client.query('BEGIN');
        try {
          const savepoints = { depth: 0 };
          for (const step of steps) await run(step, savepoints);
          await client.query(commits ? 'COMMIT' : 'ROLLBACK');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        const after = await state();
        for (const [index, was] of before.entries()) {
          const now = after[index]!;
          const everyCustomer = steps.some((step) => step.kind === 'write every customer');
          if (!commits || (index === CUSTOMERS && !everyCustomer)) {
            expect(now.version, `customer ${index}`).toBe(was.version);
            continue;
          }
          if (now.rows !== was.rows) {
            expect(BigInt(now.version), `customer ${index}: its loads changed`).toBeGreaterThan(BigInt(was.version));
            if (now.newest_stamp !== null) expect(now.latest!.getTime(), `customer ${index}: latest stamp`).toBeGreaterThanOrEqual(now.newest_stamp.getTime());
          }
        }
      }),
      {
        numRuns: 100,
        examples: [
          [[{ kind: 'insert', customer: 0, rows: 2 }, { kind: 'constraints', immediate: true }, { kind: 'a millisecond passes' }, { kind: 'update', customer: 0, nth: 0, changes: true }], true],
          [[{ kind: 'savepoint' }, { kind: 'insert', customer: 1, rows: 1 }, { kind: 'rollback to savepoint' }, { kind: 'delete', customer: 1, nth: 0 }], true],
          // A run of rows after an early firing, its first row stamped in the firing's millisecond, its second
          // later (twice: the first row lands in the firing's millisecond nearly always, not always).
          [[{ kind: 'insert', customer: 1, rows: 1 }, { kind: 'fire, then insert two rows a pause apart', customer: 1 }], true],
          [[{ kind: 'insert', customer: 2, rows: 1 }, { kind: 'fire, then insert two rows a pause apart', customer: 2 }], true],
        ],
      },
    );
  });

  /** How many times a transaction running `sql` (then its deferred events) calls PL/pgSQL function `name`; rolled back. */
  async function callsOf(name: string, sql: string): Promise<number> {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL track_functions = 'pl'`);
      // The backend's calls not yet sent to the statistics, which may hold earlier transactions' calls.
      const calls = async () =>
        Number((await client.query<{ n: string }>(`SELECT coalesce(pg_stat_get_xact_function_calls($1::regproc), 0)::text AS n`, [name])).rows[0]!.n);
      const before = await calls();
      await client.query(sql);
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      return (await calls()) - before;
    } finally {
      await client.query('ROLLBACK');
    }
  }

  it('announces each customer once, a bulk move of loads from one customer to another included', async () => {
    const insert = `INSERT INTO loads (customer_id, load_number, status) SELECT ${ids[0]}, 'M-' || g, 'Available' FROM generate_series(1, 500) AS g`;
    expect(await callsOf('announce_feed_writer', insert)).toBe(1);
    expect(await callsOf('announce_feed_writer', `${insert}; UPDATE loads SET customer_id = ${ids[1]} WHERE load_number LIKE 'M-%'`)).toBe(2);
  });

  it('queues one event for a bulk write of one customer, one a row when a few customers alternate, 17 for a writer of every customer', async () => {
    const events = (sql: string): Promise<number> => callsOf('bump_feed_versions', sql);
    const bulk = (customers: string) => `
      INSERT INTO loads (customer_id, load_number, status)
      SELECT c.id, 'B-' || g || '-' || c.id, 'Available' FROM generate_series(1, 500) AS g, unnest('${customers}'::bigint[]) AS c(id)
       ORDER BY g, c.id`;
    expect(await events(bulk(`{${ids[0]}}`))).toBe(1);
    expect(await events(bulk(`{${ids[0]},${ids[1]}}`))).toBe(1_000);
    expect(await events(`UPDATE loads SET po_number = 'bulk' WHERE customer_id = ${ids[1]}`)).toBe(1);
    expect(await events(`UPDATE loads SET po_number = po_number WHERE customer_id = ${ids[1]}`)).toBe(0);
    expect(await events(`${bulk(`{${ids[2]}}`)}; SET CONSTRAINTS ALL IMMEDIATE; DELETE FROM loads WHERE customer_id = ${ids[2]}`)).toBe(2);
    // A writer of every customer (from its 17th) is covered by one event: its first bumps every customer.
    const many = `{${ids.slice(CUSTOMERS + 1).join(',')}}`;
    expect(await events(bulk(many))).toBe(17);
    // Events fired early (SET CONSTRAINTS ... IMMEDIATE) leave later writes of the same customer to queue their own.
    const again = bulk(`{${ids[0]}}`).replaceAll("'B-'", "'C-'");
    expect(await events(`${bulk(`{${ids[0]}}`)}; SET CONSTRAINTS ALL IMMEDIATE; ${again}`)).toBe(2);
  });

  it('stamps, announces and bumps the writes of a session whose search_path is empty, as logical replication\'s workers run', async () => {
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    const schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]!.schema;
    const loads = `"${schema}".loads`;
    const announced = async (customerId: string) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM feed_writers(clock_timestamp()) AS w WHERE w.slot = feed_writer_slot($1::bigint)`, [customerId])).rows[0]!.n > 0;
    try {
      await writer.query(`SET search_path = ''`);
      // A load of the third customer for the transaction below to delete (the property above may have deleted its others).
      await writer.query(`INSERT INTO ${loads} (customer_id, load_number, status) VALUES ($1::bigint, 'EMPTY-PATH-2', 'Available')`, [ids[2]]);
      const before = await state();
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO ${loads} (customer_id, load_number, status) VALUES ($1::bigint, 'EMPTY-PATH-1', 'Available')`, [ids[0]]);
      await writer.query(`UPDATE ${loads} SET customer_id = $1::bigint WHERE load_number = 'EMPTY-PATH-1'`, [ids[1]]);
      await writer.query(`DELETE FROM ${loads} WHERE load_number = 'EMPTY-PATH-2'`);
      expect([await announced(ids[0]!), await announced(ids[1]!), await announced(ids[2]!)]).toEqual([true, true, true]);
      await writer.query('COMMIT');
      const after = await state();
      for (const index of [0, 1, 2]) expect(BigInt(after[index]!.version), `customer ${index}`).toBeGreaterThan(BigInt(before[index]!.version));
      expect(after[CUSTOMERS]!.version).toBe(before[CUSTOMERS]!.version);
      const { rows } = await client.query<{ updated_at: Date; created_at: Date }>(`SELECT updated_at, created_at FROM loads WHERE load_number = 'EMPTY-PATH-1'`);
      expect(rows[0]!.updated_at.getTime()).toBeGreaterThanOrEqual(rows[0]!.created_at.getTime() - 1);
    } finally {
      await writer.end();
    }
  });
});
