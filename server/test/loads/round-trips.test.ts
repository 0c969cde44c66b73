import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startAppWithKey, testClock, type TestApp } from '../support/app.js';

// Issue "Page throughput": the per-request work on the primary (authentication, the rate-limit count and
// the settled horizon) is one round trip; then the page is read.
describe('round trips per request', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;
  let statements = 0;
  const clientQuery = pg.Client.prototype.query;

  async function roundTripsOf(url: string, presented = key): Promise<{ status: number; roundTrips: number }> {
    statements = 0;
    const response = await app.get(url, presented);
    return { status: response.statusCode, roundTrips: statements };
  }

  beforeAll(async () => {
    // Today's clock: the window then starts after the feed index's cutoff, as it does in service, and a
    // page without filters is read by its planned statement (sql/functions/feed_page_from_start.sql).
    ({ app, key } = await startAppWithKey(database.url, { clock: testClock(new Date()) }));
    await app.load('acme', Array.from({ length: 30 }, (_, index) => aLoad(`RT-${index}`)));
    // Counted on the connection, where both the pool's own queries and a page's statements (each on a
    // connection checked out for it, db/cancellable.ts) go.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements += 1;
      return (clientQuery as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof clientQuery;
  });
  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await app?.close();
  });

  it('is two for page 1: the admission, then the page counted and read in one statement', async () => {
    expect(await roundTripsOf('/api/v1/loads?pageSize=10')).toEqual({ status: 200, roundTrips: 2 });
  });

  it('is two for a later page whose count is kept, from the start or from the end', async () => {
    expect(await roundTripsOf('/api/v1/loads?pageSize=10&page=2')).toEqual({ status: 200, roundTrips: 2 });
    expect(await roundTripsOf('/api/v1/loads?pageSize=10&page=3')).toEqual({ status: 200, roundTrips: 2 });
  });

  it('is three for a later page whose window starts before the feed index\'s cutoff (a clock a month behind): the planned statement answers no row, the query\'s own statement the page', async () => {
    app.clock.set(new Date(Date.now() - 120 * 86_400_000));
    try {
      // Page 1 of this window is counted and read in one statement, as ever; page 2 is then read planned first.
      expect(await roundTripsOf('/api/v1/loads?pageSize=10')).toEqual({ status: 200, roundTrips: 2 });
      expect(await roundTripsOf('/api/v1/loads?pageSize=10&page=2')).toEqual({ status: 200, roundTrips: 3 });
    } finally {
      app.clock.set(new Date());
    }
  });

  it('is one for a 400 and for a 429, and none for a malformed key', async () => {
    expect(await roundTripsOf('/api/v1/loads?pageSize=zero')).toEqual({ status: 400, roundTrips: 1 });
    expect(await roundTripsOf('/api/v1/loads', 'lf_live_not-a-key')).toEqual({ status: 401, roundTrips: 0 });
    const limited = (await app.key('acme', { rateLimit: 1 })).key;
    expect(await roundTripsOf('/api/v1/loads?pageSize=1', limited)).toEqual({ status: 200, roundTrips: 2 });
    expect(await roundTripsOf('/api/v1/loads?pageSize=1', limited)).toEqual({ status: 429, roundTrips: 1 });
  });
});
