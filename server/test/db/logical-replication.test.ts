// Loads fed by logical replication from an operator's transport-management system: a publisher cluster of
// its own (wal_level = logical) and the feed's database subscribing to its `loads`, both real PostgreSQL
// clusters on this machine (topology/src/postgres.ts). The apply worker writes in session_replication_role
// replica and fires row triggers only; the feed's triggers fire ALWAYS (migrations/0012), so a replicated
// change is stamped, announced and counted like any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrimary, type Primary } from '../../topology/src/postgres.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { feedCopy, truthOf, type FeedCopy } from '../support/feed-copy.js';

describe('loads written by logical replication', () => {
  let publisher: Primary;
  let subscriber: Primary;
  let app: TestApp;
  let key: string;
  let copy: FeedCopy;

  const feedVersion = async (): Promise<bigint> =>
    BigInt((await app.pool.query<{ version: string }>(`SELECT version::text FROM customer_feed_versions WHERE customer_id = 1`)).rows[0]?.version ?? '0');

  beforeAll(async () => {
    [publisher, subscriber] = await Promise.all([startPrimary({ settings: ['wal_level = logical'] }), startPrimary()]);
    // The operator's system: its own loads table, the columns it shares with the feed's, keyed by id.
    await publisher.sql(
      `CREATE TABLE loads (id bigint PRIMARY KEY, customer_id bigint NOT NULL, load_number text NOT NULL, po_number text,
                           status text NOT NULL, scheduled_pickup_date timestamptz)`,
    );
    await publisher.sql(`INSERT INTO loads VALUES (1, 1, 'R-1', NULL, 'Available', '2026-06-01T08:00:00Z'), (2, 1, 'R-2', NULL, 'Available', '2026-06-01T08:00:00Z')`);
    await publisher.sql(`CREATE PUBLICATION tms FOR TABLE loads WITH (publish = 'insert, update, delete')`);
    await subscriber.sql('CREATE DATABASE loadfeed');
    app = await startApp(subscriber.urlOf('loadfeed'));
    await app.customer('acme');
    key = (await app.key('acme')).key;
    // The feed's own rows take ids far from the publisher's.
    await subscriber.sql(`ALTER TABLE loads ALTER COLUMN id RESTART WITH 1000000`, [], 'loadfeed');
    await app.load('acme', [aLoad('LOCAL-1')]);
    copy = feedCopy((query) => app.get(`/api/v1/loads?${query}`, key));
    await copy.poll();
    await subscriber.sql(
      `CREATE SUBSCRIPTION tms CONNECTION 'host=127.0.0.1 port=${publisher.port} user=postgres dbname=postgres' PUBLICATION tms`,
      [],
      'loadfeed',
    );
  }, 180_000);
  afterAll(async () => {
    await app?.pool.query('DROP SUBSCRIPTION IF EXISTS tms').catch(() => {});
    await app?.close();
    await Promise.all([publisher?.destroy(), subscriber?.destroy()]);
  });

  it('delivers the initial copy and every replicated insert and update to a zero-overlap client, moving the feed version', async () => {
    await copy.pollUntil((rows) => rows.has('R-1') && rows.has('R-2'), 60_000);
    const afterCopy = await feedVersion();
    const stampBefore = copy.rows.get('R-1')!.updatedAt;

    await publisher.sql(`UPDATE loads SET po_number = 'PO-77' WHERE id = 1`);
    await copy.pollUntil((rows) => rows.get('R-1')?.poNumber === 'PO-77', 30_000);
    expect(copy.rows.get('R-1')!.updatedAt > stampBefore).toBe(true);
    expect(await feedVersion()).toBeGreaterThan(afterCopy);

    // One replicated transaction that writes two loads: both arrive.
    await publisher.sql(`BEGIN; INSERT INTO loads VALUES (3, 1, 'R-3', 'PO-3', 'Covered', '2026-06-02T08:00:00Z'); UPDATE loads SET status = 'Covered' WHERE id = 2; COMMIT`);
    await copy.pollUntil((rows) => rows.get('R-3')?.poNumber === 'PO-3' && rows.has('R-2'), 30_000);
    await copy.poll();
    expect(copy.rows).toEqual(await truthOf(app.pool, 'acme'));
    const served = JSON.parse((await app.get('/api/v1/loads?pageSize=100', key)).payload) as { data: { loadNumber: string; status: string }[]; totalCount: number };
    expect(served.data.find((load) => load.loadNumber === 'R-2')?.status).toBe('Covered');
    expect(served.totalCount).toBe(4);
  }, 120_000);

  it('keeps the stamp of a replicated update that changes no value the feed serves', async () => {
    await copy.poll();
    const before = copy.rows.get('R-3')!.updatedAt;
    const version = await feedVersion();
    await publisher.sql(`UPDATE loads SET po_number = 'PO-3' WHERE id = 3`);
    // A later change shows the apply worker has passed the no-op update.
    await publisher.sql(`UPDATE loads SET po_number = 'PO-1b' WHERE id = 1`);
    await copy.pollUntil((rows) => rows.get('R-1')?.poNumber === 'PO-1b', 30_000);
    expect(copy.rows.get('R-3')!.updatedAt).toBe(before);
    expect(await feedVersion()).toBe(version + 1n);
  }, 60_000);
});
