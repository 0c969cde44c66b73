// The updatedAt trigger announces a customer's writer once per transaction (sql/functions/loads_keep_updated_at.sql), not once a
// row: whatever a transaction writes, every row it stamps is still covered by its announcement — after
// a savepoint that announced it was rolled back, and across customers written in turn.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

/** Whether a writer of the customer is announced now (migrations/0012: feed_writers reads pg_locks). */
const ANNOUNCED_SQL = `
SELECT count(*)::int AS n FROM feed_writers(clock_timestamp()) AS w
 WHERE w.slot = feed_writer_slot((SELECT id FROM customers WHERE code = $1::text))`;

const INSERT_SQL = `
INSERT INTO loads (customer_id, load_number, status)
SELECT id, $2::text, 'Available' FROM customers WHERE code = $1::text`;

describe('the updatedAt trigger announcing a writer once per customer', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let writer: pg.Client;
  const announced = async (customer: string): Promise<boolean> => (await app.pool.query<{ n: number }>(ANNOUNCED_SQL, [customer])).rows[0]!.n > 0;

  beforeAll(async () => {
    app = await startApp(database.url);
    for (const code of ['a', 'b']) {
      await app.customer(code);
      await app.load(code, [aLoad(`${code}-0`)]);
    }
    writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
  });
  afterAll(async () => {
    await writer?.end();
    await app?.close();
  });

  it('announces again after a savepoint that announced is rolled back', async () => {
    await writer.query('BEGIN');
    await writer.query('SAVEPOINT first');
    await writer.query(INSERT_SQL, ['a', 'a-1']);
    expect(await announced('a')).toBe(true);
    await writer.query('ROLLBACK TO SAVEPOINT first');
    expect(await announced('a')).toBe(false);
    await writer.query(INSERT_SQL, ['a', 'a-2']);
    expect(await announced('a')).toBe(true);
    await writer.query('ROLLBACK');
    expect(await announced('a')).toBe(false);
  });

  it('announces each customer written in turn, and the first again after another', async () => {
    await writer.query('BEGIN');
    await writer.query(INSERT_SQL, ['a', 'a-3']);
    await writer.query(INSERT_SQL, ['b', 'b-1']);
    await writer.query(`UPDATE loads SET po_number = 'again' WHERE load_number = 'a-0'`);
    expect([await announced('a'), await announced('b')]).toEqual([true, true]);
    await writer.query('COMMIT');
    expect([await announced('a'), await announced('b')]).toEqual([false, false]);
  });
});
