import { SETTLED_THROUGH_HEADER, type Load, type LoadPage } from '@loadfeed/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { feedCopy, truthOf, type FeedCopy } from '../support/feed-copy.js';

// DECISIONS.md, "Loads in the reference server": a client that polls with updatedSince = the largest
// updatedAt it has seen, with no overlap, receives every committed change, however long the writer's
// transaction runs; a long writer delays only the feeds of the customers it writes.
describe('the settled feed', () => {
  const database = useTestDatabase();
  let app: TestApp;
  const keys = new Map<string, string>();
  const clients: pg.Client[] = [];

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    clients.push(client);
    return client;
  }
  const setPo = (client: pg.Client, customer: string, loadNumber: string, po: string) =>
    client.query(
      `UPDATE loads SET po_number = $3::text WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = $2::text`,
      [customer, loadNumber, po],
    );

  beforeAll(async () => {
    app = await startApp(database.url);
    for (const code of ['g', 'a']) {
      await app.customer(code);
      keys.set(code, (await app.key(code)).key);
      await app.load(code, [aLoad(`${code}-1`), aLoad(`${code}-2`), aLoad(`${code}-3`)]);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await app?.close();
  });

  function copyOf(customer: string): FeedCopy {
    return feedCopy((query) => app.get(`/api/v1/loads?${query}`, keys.get(customer)));
  }

  it('delivers a long ETL transaction\'s change to a client that polls with no overlap', async () => {
    const copy = copyOf('a');
    await copy.poll();
    const etl = await connect();
    const shortWriter = await connect();
    await etl.query('BEGIN');
    await setPo(etl, 'g', 'g-1', 'etl');
    // Meanwhile short writes to A commit, in a later millisecond, and A's client reads them, moving its
    // cursor past the ETL's start.
    await nextDatabaseMillisecond(shortWriter);
    await setPo(shortWriter, 'a', 'a-1', 'short');
    await copy.pollUntil((rows) => rows.get('a-1')?.poNumber === 'short');
    // The ETL reaches A late, then commits.
    await setPo(etl, 'a', 'a-2', 'etl');
    await copy.poll();
    expect(copy.rows.get('a-2')?.poNumber).toBeNull();
    await etl.query('COMMIT');
    await copy.pollUntil((rows) => rows.get('a-2')?.poNumber === 'etl');
    expect(copy.rows).toEqual(await truthOf(app.pool, 'a'));
  });

  it('does not delay customer A while a writer of customer G stays open', async () => {
    const copy = copyOf('a');
    await copy.poll();
    const longWriter = await connect();
    const shortWriter = await connect();
    await longWriter.query('BEGIN');
    await setPo(longWriter, 'g', 'g-2', 'open');
    try {
      await setPo(shortWriter, 'a', 'a-3', 'while-g-is-open');
      const committed = Date.now();
      await copy.pollUntil((rows) => rows.get('a-3')?.poNumber === 'while-g-is-open');
      expect(Date.now() - committed).toBeLessThan(1_000);
    } finally {
      await longWriter.query('ROLLBACK');
    }
  });

  it('holds back what a long writer of A may still commit before, and loses none of it', async () => {
    const copy = copyOf('a');
    await copy.poll();
    const longWriter = await connect();
    await longWriter.query('BEGIN');
    await setPo(longWriter, 'a', 'a-1', 'long');
    const firstStamp = (await longWriter.query<{ at: string }>(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM loads WHERE load_number = 'a-1'`,
    )).rows[0]!.at;
    const response = await app.get('/api/v1/loads?pageSize=1000', keys.get('a'));
    const horizon = response.headers[SETTLED_THROUGH_HEADER] as string;
    expect(horizon < firstStamp).toBe(true);
    expect((JSON.parse(response.payload) as LoadPage).data.every((row: Load) => row.updatedAt <= horizon)).toBe(true);
    await longWriter.query('COMMIT');
    await copy.pollUntil((rows) => rows.get('a-1')?.poNumber === 'long');
    expect(copy.rows).toEqual(await truthOf(app.pool, 'a'));
  });

  it('says how far the feed is settled on every page, and serves nothing newer', async () => {
    const response = await app.get('/api/v1/loads?pageSize=1000', keys.get('a'));
    const horizon = response.headers[SETTLED_THROUGH_HEADER] as string;
    expect(horizon).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.now() - Date.parse(horizon)).toBeLessThan(1_000);
    const page = JSON.parse(response.payload) as LoadPage;
    expect(page.data.length).toBe(3);
    expect(page.data.every((row) => row.updatedAt <= horizon)).toBe(true);
  });
});
