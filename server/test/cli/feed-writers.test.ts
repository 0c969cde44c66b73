import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { cliOk } from './run-cli.js';

// An operator can see who holds a feed back: the transactions announced as a customer's writers, with
// their pid and age (server/DESIGN.md, "The settled feed").
describe('loadfeed-server feed-writers', () => {
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.url });
  const writers: pg.Client[] = [];

  async function writerOf(customerCodes: string[]): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url, application_name: 'nightly-etl' });
    await client.connect();
    writers.push(client);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date)
       SELECT c.id, 'W-' || c.code, 'Available', now() FROM customers AS c WHERE c.code = ANY ($1::text[])`,
      [customerCodes],
    );
    return client;
  }

  beforeAll(async () => {
    await migrate(database.url);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`INSERT INTO customers (code, name) SELECT 'c' || g, 'Customer ' || g FROM generate_series(1, 20) AS g`).finally(() => admin.end());
  });
  afterAll(async () => {
    await Promise.all(writers.map((client) => client.end().catch(() => {})));
  });

  it('says when nothing holds a feed back', async () => {
    expect(await cliOk(['feed-writers'], { env: env() })).toBe('no transaction holds a feed back\n');
  });

  it('lists each writer in flight with its pid, customers, first stamp and age; a writer of more than 16 customers holds every customer', async () => {
    const few = await writerOf(['c1', 'c2']);
    const many = await writerOf(Array.from({ length: 17 }, (_, index) => `c${index + 3}`));
    const fewPid = (await few.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const manyPid = (await many.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const listed = JSON.parse(await cliOk(['feed-writers', '--json'], { env: env() })) as { pid: number; customers: unknown; ageMs: number; application: string; holdingSince: string }[];
    const ofFew = listed.filter((writer) => writer.pid === fewPid);
    expect(ofFew.map((writer) => writer.customers).sort()).toEqual([['c1'], ['c2']]);
    expect(ofFew.every((writer) => writer.application === 'nightly-etl' && writer.ageMs >= 0)).toBe(true);
    expect(listed.filter((writer) => writer.pid === manyPid).map((writer) => writer.customers)).toContain('every customer');

    const forC1 = JSON.parse(await cliOk(['feed-writers', 'c1', '--json'], { env: env() })) as { pid: number; customers: unknown }[];
    expect(forC1.map((writer) => writer.customers)).toEqual(expect.arrayContaining([['c1'], 'every customer']));
    expect(forC1.some((writer) => JSON.stringify(writer.customers) === '["c2"]')).toBe(false);

    const table = await cliOk(['feed-writers'], { env: env() });
    expect(table.split('\n')[0]).toMatch(/^PID\s+CUSTOMERS\s+HOLDING SINCE\s+AGE\s+ROLE\s+APPLICATION\s+STATE$/);
    expect(table).toContain(`${manyPid}`);
    await few.query('ROLLBACK');
    await many.query('ROLLBACK');
    expect(await cliOk(['feed-writers'], { env: env() })).toBe('no transaction holds a feed back\n');
  });
});
