import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { migrate } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/logging.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { feedCopy, truthOf, type FeedCopy } from '../support/feed-copy.js';
import { createTestRole, SERVER_GRANTS, WRITER_GRANTS, type TestRole } from '../support/roles.js';

const CUSTOMERS = ['p0', 'p1', 'bulk1'];
const LOADS_PER_CUSTOMER = 8;
/** Customers a bulk writer writes besides its steps' (bulk1 … bulk2000, one load each): past the 16 a
 * writer announces one by one, so it holds every feed back while it runs. */
const BULK_CUSTOMERS = 2_000;

/** One write of a writer's transaction, after a pause. */
interface Step {
  customer: number;
  load: number;
  pauseMs: number;
}

interface Writer {
  steps: Step[];
  commits: boolean;
  /** Connects as the ETL's own role rather than the superuser. */
  asWriterRole: boolean;
  /** Writes in session_replication_role replica, as a replication apply worker or a CDC sink does (a
   * superuser's setting: the ETL's own role writes in the default role). */
  asReplica: boolean;
  /** Before its steps, writes a load of every bulk customer in one statement. */
  bulk: boolean;
  holdMs: number;
}

const writerArbitrary: fc.Arbitrary<Writer> = fc.record({
  steps: fc.array(
    fc.record({ customer: fc.nat(CUSTOMERS.length - 1), load: fc.nat(LOADS_PER_CUSTOMER - 1), pauseMs: fc.nat(12) }),
    { minLength: 1, maxLength: 6 },
  ),
  commits: fc.boolean(),
  asWriterRole: fc.boolean(),
  asReplica: fc.boolean(),
  bulk: fc.nat(9).map((draw) => draw === 0),
  holdMs: fc.nat(25),
});

/** Another application's advisory lock, held while the writers run. */
interface ForeignLock {
  exclusive: boolean;
  /** Two int4 keys rather than one bigint. */
  pair: boolean;
  /** The customer whose key it mimics: the feed's old encoding, or the feed's own key held outside a writer. */
  customer: number;
  mimicsFeedKey: boolean;
  hoursBack: number;
}

const foreignLockArbitrary: fc.Arbitrary<ForeignLock> = fc.record({
  exclusive: fc.boolean(),
  pair: fc.boolean(),
  customer: fc.nat(CUSTOMERS.length - 1),
  mimicsFeedKey: fc.boolean(),
  hoursBack: fc.integer({ min: 1, max: 24 }),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// DECISIONS.md: a client that polls with updatedSince = the largest updatedAt it has seen, with no
// overlap, receives every committed change, whatever writes the table, however long its transactions
// run, committed in any order, or rolled back. Here the server's role and one writer's role are not
// superusers.
describe('the settled feed under random writers', () => {
  const database = useTestDatabase();
  let setup: TestApp;
  let serverRole: TestRole;
  let writerRole: TestRole;
  let server: Awaited<ReturnType<typeof createServer>>;
  let serverPool: pg.Pool;
  const keys: string[] = [];
  let foreignHolder: pg.Client;
  let customerIds: bigint[];

  /** Takes the foreign locks in a session of their own, outside any transaction, as a job queue does. */
  async function holdForeignLocks(locks: ForeignLock[]): Promise<void> {
    for (const lock of locks) {
      const back = BigInt(Date.now() - Date.parse('2020-01-01T00:00:00Z') - lock.hoursBack * 3_600_000);
      const { rows } = await foreignHolder.query<{ key: string }>(
        lock.mimicsFeedKey
          ? `SELECT feed_writer_key($1::bigint, now() - $2::integer * interval '1 hour')::text AS key`
          : `SELECT (($1::bigint << 41) | $2::bigint)::text AS key`,
        [customerIds[lock.customer]!.toString(), lock.mimicsFeedKey ? lock.hoursBack : back.toString()],
      );
      const key = BigInt(rows[0]!.key);
      const lockFunction = lock.exclusive ? 'pg_advisory_lock' : 'pg_advisory_lock_shared';
      if (lock.pair) {
        await foreignHolder.query(`SELECT ${lockFunction}($1::integer, $2::integer)`, [Number(BigInt.asIntN(32, key >> 32n)), Number(BigInt.asIntN(32, key))]);
      } else {
        await foreignHolder.query(`SELECT ${lockFunction}($1::bigint)`, [key.toString()]);
      }
    }
  }

  beforeAll(async () => {
    await migrate(database.url);
    // Writers of one customer wait for each other on its feed version, so two can deadlock; a writer
    // then retries, as an ETL does. Detected in milliseconds rather than PostgreSQL's default second.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${database.name} SET deadlock_timeout = '10ms'`).finally(() => admin.end());
    serverRole = await createTestRole(database.url, 'lf_server', SERVER_GRANTS);
    writerRole = await createTestRole(database.url, 'lf_writer', WRITER_GRANTS);
    setup = await startApp(database.url);
    for (const code of CUSTOMERS) {
      await setup.customer(code);
      keys.push((await setup.key(code)).key);
      await setup.load(code, Array.from({ length: LOADS_PER_CUSTOMER }, (_, index) => aLoad(`${code}-${index}`)));
    }
    await setup.pool.query(`INSERT INTO customers (code, name) SELECT 'bulk' || g, 'Bulk ' || g FROM generate_series(2, $1::integer) AS g`, [BULK_CUSTOMERS]);
    await setup.pool.query(
      `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
       SELECT c.id, c.code || '-bulk', 'Available', timestamptz '2026-06-01T08:00:00Z' FROM customers AS c WHERE c.code LIKE 'bulk%'`,
    );
    foreignHolder = new pg.Client({ connectionString: database.url });
    await foreignHolder.connect();
    customerIds = (await setup.pool.query<{ id: string }>(`SELECT id::text FROM customers WHERE code = ANY ($1::text[]) ORDER BY array_position($1::text[], code)`, [CUSTOMERS])).rows.map((row) => BigInt(row.id));
    serverPool = createPool(serverRole.url, { max: 4 });
    const config = loadConfig({ DATABASE_URL: serverRole.url, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' });
    server = await createServer(config, { pool: serverPool, logger: createLogger('silent') });
  });
  afterAll(async () => {
    await foreignHolder?.end();
    await server?.stop();
    await serverPool?.end();
    await setup?.close();
  });

  function copyOf(customer: number): FeedCopy {
    return feedCopy((query) =>
      server.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers: { authorization: `Bearer ${keys[customer]}` } }),
    );
  }

  /** Runs the writer's transaction, again from the start if PostgreSQL ends it to break a deadlock. */
  async function runWriter(writer: Writer, tag: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await runWriterOnce(writer, tag);
      } catch (error) {
        if ((error as { code?: string }).code !== '40P01' || attempt >= 10) throw error;
      }
    }
  }

  async function runWriterOnce(writer: Writer, tag: string): Promise<void> {
    const client = new pg.Client({ connectionString: writer.asWriterRole ? writerRole.url : database.url });
    await client.connect();
    try {
      // In (customer, load) order, as every writer here, so that writers wait on each other but never deadlock.
      const steps = [...writer.steps].sort((a, b) => a.customer - b.customer || a.load - b.load);
      await client.query('BEGIN');
      if (writer.asReplica && !writer.asWriterRole) await client.query(`SET LOCAL session_replication_role = replica`);
      if (writer.bulk) {
        await client.query(`UPDATE loads SET po_number = $1::text WHERE load_number LIKE 'bulk%-bulk'`, [`${tag}-bulk`]);
      }
      for (const [index, step] of steps.entries()) {
        await pause(step.pauseMs);
        await client.query(
          `UPDATE loads SET po_number = $3::text WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = $2::text`,
          [CUSTOMERS[step.customer], `${CUSTOMERS[step.customer]}-${step.load}`, `${tag}-${index}`],
        );
      }
      await pause(writer.holdMs);
      await client.query(writer.commits ? 'COMMIT' : 'ROLLBACK');
    } finally {
      await client.end();
    }
  }

  it('leaves every zero-overlap copy equal to the database, for any writers (of one, a few or thousands of customers, in any replication role), foreign lock holders, holds, commit orders and rollbacks', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(writerArbitrary, { minLength: 1, maxLength: 4 }), fc.array(foreignLockArbitrary, { maxLength: 3 }), async (writers, foreignLocks) => {
        run += 1;
        await holdForeignLocks(foreignLocks);
        const copies = CUSTOMERS.map((_, customer) => copyOf(customer));
        await Promise.all(copies.map((copy) => copy.poll()));
        let writing = true;
        const polling = copies.map(async (copy) => {
          while (writing) {
            await copy.poll();
            await pause(2);
          }
        });
        await Promise.all(writers.map((writer, index) => runWriter(writer, `r${run}w${index}`))).finally(() => {
          writing = false;
        });
        await Promise.all(polling);
        // Every writer has ended: the horizon passes the last stamp once the database's clock moves on.
        await nextDatabaseMillisecond(setup.pool);
        try {
          for (const [customer, copy] of copies.entries()) {
            await copy.poll();
            expect(copy.rows).toEqual(await truthOf(setup.pool, CUSTOMERS[customer]!));
          }
        } finally {
          await foreignHolder.query('SELECT pg_advisory_unlock_all()');
        }
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
