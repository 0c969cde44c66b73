// Page reads on a real streaming standby (a primary and a standby of its own, made with initdb and
// pg_basebackup): a page comes from the standby only when the standby has replayed everything its
// horizon covers, and faults of either database reach no client except as SPEC's 500.
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrimary, type Primary, type Standby } from '../../topology/src/postgres.js';
import { loadConfig, standbyOptionsOf } from '../../src/config/load.js';
import { createPool } from '../../src/db/pool.js';
import { ReadRouter } from '../../src/db/read-router.js';
import { databaseName, Standbys } from '../../src/db/standbys.js';
import { Metrics } from '../../src/metrics.js';
import { aLoad, asChecked, startApp, type TestApp } from '../support/app.js';

interface Page {
  data: { loadNumber: string; status: string }[];
  totalCount: number;
  hasMore: boolean;
}

describe('page reads on a streaming standby', () => {
  let primary: Primary;
  let standby: Standby;
  let app: TestApp;
  let metrics: Metrics;
  let key: string;
  let standbyName: string;
  /** What the public /readyz calls the standby (DATABASE_REPLICA_NAMES): never its address. */
  const publicName = 'replica-east';

  beforeAll(async () => {
    primary = await startPrimary();
    await primary.sql('CREATE DATABASE loadfeed');
    standby = await primary.addStandby();
    standbyName = databaseName(standby.urlOf('loadfeed'));
    metrics = new Metrics();
    app = await startApp(primary.urlOf('loadfeed'), { env: { DATABASE_REPLICA_URLS: standby.urlOf('loadfeed'), DATABASE_REPLICA_NAMES: publicName }, metrics });
    await app.customer('acme');
    await app.customer('beta');
    key = (await app.key('acme')).key;
    await app.load('acme', [aLoad('A1'), aLoad('A2'), aLoad('A3'), aLoad('A4')]);
    await standby.caughtUp();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await primary?.destroy();
  });

  /** Pages read so far on each database. */
  const reads = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await metrics.pageReads.get()).values.map(({ labels, value }) => [String(labels.database), value]));
  /** Reads one page and says where it was read. */
  const page = async (query = ''): Promise<{ page: Page; from: string }> => {
    const before = await reads();
    const response = await app.get(`/api/v1/loads${query}`, key);
    expect(response.statusCode).toBe(200);
    expect(checkResponse(asChecked(response))).toEqual([]);
    const after = await reads();
    const from = Object.keys(after).find((database) => after[database] !== before[database]) ?? 'nowhere';
    return { page: JSON.parse(response.payload) as Page, from };
  };
  const numbers = (result: { page: Page }) => result.page.data.map((load) => load.loadNumber);

  it('reads pages on the standby, the page the primary would serve', async () => {
    const first = await page();
    expect(first.from).toBe(standbyName);
    expect(numbers(first)).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(first.page.totalCount).toBe(4);
  });

  it('with replay paused, other customers\' writes hold nothing back; a change of this customer moves its pages to the primary until the standby has it', async () => {
    await standby.pauseReplay();
    try {
      await app.load('beta', [aLoad('B1')]);
      expect((await page()).from).toBe(standbyName);

      await app.load('acme', [aLoad('A2', { status: 'Covered' }), aLoad('A5')]);
      const changed = await page();
      expect(changed.from).toBe('primary');
      expect(numbers(changed)).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
      expect(changed.page.data.find((load) => load.loadNumber === 'A2')?.status).toBe('Covered');
      // A walk of one row a page never reads an older page than the one before it.
      const walk = [await page('?pageSize=2&page=1'), await page('?pageSize=2&page=2'), await page('?pageSize=2&page=3')];
      expect(walk.map(numbers).flat()).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
      expect(walk.every((read) => read.page.totalCount === 5)).toBe(true);
      const skips = (await metrics.standbySkips.get()).values.find(({ labels }) => labels.reason === 'behind');
      expect(skips?.value).toBeGreaterThanOrEqual(4);
    } finally {
      await standby.resumeReplay();
    }
    await standby.caughtUp();
    const resumed = await page();
    expect(resumed.from).toBe(standbyName);
    expect(numbers(resumed)).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
  });

  it('a statement past its deadline is cancelled by the standby itself, not left running there, and the read goes on on the primary', async () => {
    const primaryPool = createPool(primary.urlOf('loadfeed'));
    const standbys = new Standbys([standby.urlOf('loadfeed')], standbyOptionsOf(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '300' })));
    const router = new ReadRouter(primaryPool, standbys);
    // Slow on the standby only; marked, so that the standby's own sessions can be searched for it.
    const marker = `slow_read_${Date.now()}`;
    try {
      const readOnStandby = await router.read(0n, async (db) => {
        const result = await db.query<{ on_standby: boolean }>(
          `SELECT 0::bigint AS feed_version, pg_is_in_recovery() AS on_standby, pg_sleep(CASE WHEN pg_is_in_recovery() THEN 10 ELSE 0 END) AS ${marker}`,
        );
        return result.rows[0]!.on_standby;
      });
      expect(readOnStandby).toBe(false);
      const running = await standby.sql<{ count: string }>(
        `SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`,
        [`%${marker}%`],
        'loadfeed',
      );
      expect(running[0]!.count).toBe('0');
    } finally {
      await standbys.close();
      await primaryPool.end();
    }
  });

  it('a standby stopped mid-walk: the walk goes on on the primary with no error, /readyz names it down, and it serves again once back', async () => {
    const walk = [numbers(await page('?pageSize=2&page=1'))];
    await standby.stop();
    const second = await page('?pageSize=2&page=2');
    const third = await page('?pageSize=2&page=3');
    expect([second.from, third.from]).toEqual(['primary', 'primary']);
    walk.push(numbers(second), numbers(third));
    expect(walk.flat()).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
    const ready = await app.get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(JSON.parse(ready.payload)).toEqual({ status: 'ready', databases: { primary: 'up', standbys: { [publicName]: 'down' } } });
    expect(ready.payload).not.toContain(new URL(standby.urlOf('loadfeed')).port);

    await standby.start();
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const body = JSON.parse((await app.get('/readyz')).payload) as { databases: { standbys: Record<string, string> } };
      if (body.databases.standbys[publicName] === 'up') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await standby.caughtUp();
    expect((await page()).from).toBe(standbyName);
  });

  it('the primary down: SPEC\'s 500 at once and a 503 from /readyz; back, it serves again without a restart', async () => {
    await primary.stop();
    try {
      const started = Date.now();
      const response = await app.get('/api/v1/loads', key);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.payload)).toEqual({ error: 'Internal server error' });
      const ready = await app.get('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(JSON.parse(ready.payload)).toEqual({ error: `The primary database is unreachable; standbys that answer: ${publicName}` });
    } finally {
      await primary.start();
    }
    expect((await app.get('/readyz')).statusCode).toBe(200);
    expect(numbers(await page())).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
  });

  it('a promoted standby is read from no more', async () => {
    await standby.caughtUp();
    await standby.promote();
    const ready = JSON.parse((await app.get('/readyz')).payload) as { databases: { standbys: Record<string, string> } };
    expect(ready.databases.standbys[publicName]).toBe('not_standby');
    const after = await page();
    expect(after.from).toBe('primary');
    expect(numbers(after)).toEqual(['A1', 'A3', 'A4', 'A2', 'A5']);
  });
});
