import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCustomerLoads } from '../../src/seed/seed.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

const DAY = 86_400_000;

// Issue: the demo data gives loads a history of changes over the past months (distinct updatedAt values,
// some ties), and seeding past stamps is no way for an ordinary writer to backdate a change.
describe('a seeded history', () => {
  const database = useTestDatabase();
  let app: TestApp;
  const stampsOf = async (code: string) =>
    (await app.pool.query<{ at: Date }>('SELECT l.updated_at AS at FROM loads AS l JOIN customers AS c ON c.id = l.customer_id WHERE c.code = $1::text', [code])).rows.map((row) => row.at.getTime());

  beforeAll(async () => {
    app = await startApp(database.url);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gives a customer with no key distinct past stamps over months, with some ties', async () => {
    await app.customer('fresh');
    const started = Date.now();
    await seedCustomerLoads(app.pool, 'fresh', { seed: 'history', count: 300, asOf: new Date() });
    const stamps = await stampsOf('fresh');
    const distinct = new Set(stamps);
    expect(stamps).toHaveLength(300);
    expect(distinct.size).toBeGreaterThan(200);
    expect(distinct.size).toBeLessThan(300);
    expect(Math.max(...stamps)).toBeLessThan(started);
    expect(Math.max(...stamps) - Math.min(...stamps)).toBeGreaterThan(90 * DAY);
  });

  it('stamps a customer that has a key with the time of writing, whatever the history says', async () => {
    await app.customer('keyed');
    await app.key('keyed');
    const started = Date.now();
    await seedCustomerLoads(app.pool, 'keyed', { seed: 'history', count: 50, asOf: new Date() });
    expect(Math.min(...(await stampsOf('keyed')))).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 - 1000);
  });
});
