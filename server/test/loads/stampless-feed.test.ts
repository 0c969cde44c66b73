import { LIST_LOADS_PATH } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startAppWithKey, type TestApp } from '../support/app.js';

// A feed version row whose latest stamp is still migration 0006's '-infinity': a customer whose loads
// were all deleted before that migration ran. node-postgres reads '-infinity' as the number -Infinity,
// not a Date; feed_state gives it as no stamp (migrations/0011), and pages are served, not a 500.
describe('a feed version row without a stamp', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ app, key } = await startAppWithKey(database.url));
    await app.pool.query(`INSERT INTO customer_feed_versions (customer_id, version) SELECT id, 3 FROM customers WHERE code = 'acme' ON CONFLICT (customer_id) DO UPDATE SET latest_updated_at = '-infinity'`);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves page 1, a later page and the count of an empty feed', async () => {
    for (const page of [1, 2, 1]) {
      const response = await app.get(`${LIST_LOADS_PATH}?page=${page}`, key);
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.payload)).toMatchObject({ data: [], page, totalCount: 0, hasMore: false });
    }
  });

  it('counts the loads written after it', async () => {
    await app.load('acme', [aLoad('N-1')]);
    const response = await app.get(`${LIST_LOADS_PATH}?page=1`, key);
    expect(JSON.parse(response.payload)).toMatchObject({ totalCount: 1 });
  });
});
