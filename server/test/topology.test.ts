// The whole topology, as `npm run topology` starts it: HAProxy → two instances → PgBouncer (transaction
// mode) → a primary and its streaming standby (initdb, pg_basebackup). The copy a client keeps through
// it equals the database's truth while a writer changes loads and the standby's replay is paused and
// resumed; one key's limit holds across both instances; a standby stopped mid-walk costs the client
// nothing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTopology, type Topology } from '../topology/src/topology.js';
import { createKey } from '../src/admission/keys.js';
import { importLoads } from '../src/loads/import.js';
import { feedCopy, truthOf } from './support/feed-copy.js';

/** The sum over both instances of a metric's samples whose labels include `labels`. */
async function summed(topology: Topology, name: string, labels: Record<string, string> = {}): Promise<number> {
  let total = 0;
  for (const instance of topology.instances) {
    const text = await (await fetch(instance.metricsUrl)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) total += Number(line.split(' ').at(-1));
    }
  }
  return total;
}

/** Resolves once `condition` holds, asked again every `everyMs`; throws, saying `what`, if it does not within `withinMs`. */
async function until(what: string, condition: () => Promise<boolean> | boolean, { everyMs = 100, withinMs = 30_000 } = {}): Promise<void> {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The oldest shared reading of the feed's writers a request may reuse (migration 0012, feed_writers_reading). */
const SHARED_READING_MAX_AGE_MS = 1_000;

describe('HAProxy, two instances, PgBouncer, a primary and a streaming standby', () => {
  let topology: Topology;
  let pool: pg.Pool;
  let key: string;

  beforeAll(async () => {
    topology = await startTopology({ loads: 200 });
    pool = new pg.Pool({ connectionString: topology.primaryUrl, max: 3 });
    // The primary is stopped on purpose below; its idle connections then end, which is no failure here.
    pool.on('error', () => {});
    key = (await createKey(pool, 'demo', { rateLimit: 100_000 })).key;
  }, 180_000);
  afterAll(async () => {
    await pool?.end();
    await topology?.stop();
  }, 60_000);

  const get = (query: string, withKey = key) => fetch(`${topology.url}/api/v1/loads?${query}`, { headers: { authorization: `Bearer ${withKey}` } });

  it('keeps a client\'s copy equal to the truth while a writer writes and the standby\'s replay is paused and resumed; horizons step back no further than the shared reading\'s age; no 5xx', async () => {
    const horizons: string[] = [];
    const copy = feedCopy(async (query) => {
      const response = await get(query);
      const headers = Object.fromEntries(response.headers.entries());
      if (response.status === 200) horizons.push(headers['x-feed-settled-through']!);
      return { statusCode: response.status, payload: await response.text(), headers };
    });
    const standbyReads = () => summed(topology, 'loadfeed_page_reads_total', { database: `127.0.0.1:${topology.bouncer.port}/loadfeed_standby` });
    const standbyReadsBefore = await standbyReads();

    // The writer writes once per poll of the reader, so that the copy's walk always has changes to catch.
    // It holds still while the test waits for a read on the standby: a page of a customer just written is
    // read on the standby only once the standby has replayed the write, which on a loaded machine may never
    // happen between one write and the next poll.
    let writing = true;
    let writes = 0;
    let polled = () => {};
    // Once writing stops, the reader's last poll may come before the writer asks for it: then it waits for none.
    const nextPoll = () => (writing ? new Promise<void>((resolve) => (polled = resolve)) : Promise.resolve());
    let holdStill: Promise<void> | undefined;
    const whileHeldStill = async (wait: () => Promise<void>) => {
      let release = () => {};
      holdStill = new Promise<void>((resolve) => (release = resolve));
      try {
        await wait();
      } finally {
        holdStill = undefined;
        release();
      }
    };
    const writer = (async () => {
      for (let write = 0; writing && write < 2_000; write += 1) {
        if (holdStill) await holdStill;
        const loads = [
          { loadNumber: `W${write}`, status: 'Available' as const, scheduledPickupDate: new Date().toISOString(), poNumber: `new-${write}` },
          ...(write >= 3 ? [{ loadNumber: `W${write - 3}`, status: 'Covered' as const, scheduledPickupDate: new Date().toISOString(), poNumber: `changed-${write}` }] : []),
        ];
        await importLoads(pool, 'demo', loads.map((value, index) => ({ line: index + 1, value })));
        writes += 1;
        await nextPoll();
      }
    })();
    const reader = (async () => {
      while (writing) {
        await copy.poll();
        polled();
      }
      polled();
    })();

    await until('the writer has written', () => writes >= 5);
    await whileHeldStill(() => until('the copy reads pages on the standby', async () => (await standbyReads()) > standbyReadsBefore));
    await topology.standby.pauseReplay();
    const [lagAtPause, skipsAtPause, writesAtPause] = [await summed(topology, 'loadfeed_standby_replay_lag_bytes'), await summed(topology, 'loadfeed_standby_skips_total', { reason: 'behind' }), writes];
    // Each instance checks its standby every second: a check after the pause sees it further behind the
    // primary's WAL, while the copy's reads of the changed pages skip it.
    await until('the checks see the paused standby further behind, and reads skip it', async () =>
      writes >= writesAtPause + 5 &&
      (await summed(topology, 'loadfeed_standby_skips_total', { reason: 'behind' })) >= skipsAtPause + 3 &&
      (await summed(topology, 'loadfeed_standby_replay_lag_bytes')) > lagAtPause);
    const lagWhilePaused = await summed(topology, 'loadfeed_standby_replay_lag_bytes');
    await topology.standby.resumeReplay();
    const standbyReadsResumed = await standbyReads();
    const writesResumed = writes;
    await until('the writer writes on', () => writes >= writesResumed + 5);
    await whileHeldStill(() => until('the copy reads pages on the resumed standby', async () => (await standbyReads()) > standbyReadsResumed));
    writing = false;
    await Promise.all([writer, reader]);

    const truth = await truthOf(pool, 'demo');
    await copy.pollUntil((rows) => rows.size === truth.size, 10_000);
    expect(copy.rows).toEqual(truth);
    expect(horizons.length).toBeGreaterThan(10);
    // A horizon fixed from the shared reading of pg_locks (migration 0012) may be older than a fresh one
    // served just before it, by the reading's age at most (1 s); every horizon is safe either way.
    let latest = 0;
    const stepsBack = horizons.map((horizon) => {
      latest = Math.max(latest, Date.parse(horizon));
      return latest - Date.parse(horizon);
    });
    expect(Math.max(...stepsBack)).toBeLessThanOrEqual(SHARED_READING_MAX_AGE_MS);
    expect(await standbyReads()).toBeGreaterThan(standbyReadsBefore);
    expect(await summed(topology, 'loadfeed_standby_skips_total', { reason: 'behind' })).toBeGreaterThan(0);
    expect(await summed(topology, 'loadfeed_http_requests_total', { route: '/api/v1/loads', status: '500' })).toBe(0);
    expect(lagWhilePaused).toBeGreaterThan(0);
    // Caught up, the next checks say so.
    await topology.standby.caughtUp();
    await until('the checks see the standby caught up', async () => (await summed(topology, 'loadfeed_standby_replay_lag_bytes')) === 0, { everyMs: 250, withinMs: 10_000 });
    expect(await summed(topology, 'loadfeed_database_up')).toBe(2 * 2);
    // Each phase waits for its condition within its own bound (30 s, the last two 10 s), not the file's 30 s
    // default for the whole test: on a loaded machine the phases together take longer than that.
  }, 150_000);

  it('admits exactly the limit of one key in a burst spread over both instances', async () => {
    const limited = (await createKey(pool, 'demo', { rateLimit: 20 })).key;
    const requestsBefore = await Promise.all(topology.instances.map((instance) => countLoadsRequests(instance.metricsUrl)));
    const statuses = await Promise.all(Array.from({ length: 40 }, async () => (await get('pageSize=1', limited)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    const requestsAfter = await Promise.all(topology.instances.map((instance) => countLoadsRequests(instance.metricsUrl)));
    // HAProxy spread the burst: each instance answered part of it.
    for (const [index, after] of requestsAfter.entries()) expect(after).toBeGreaterThan(requestsBefore[index]!);
  });

  it('a standby stopped mid-walk: the walk goes on on the primary with no error and the same totalCount', async () => {
    const truth = await truthOf(pool, 'demo');
    const pageSize = 50;
    const seen: string[] = [];
    let totalCount: number | undefined;
    for (let page = 1; ; page += 1) {
      if (page === 2) await topology.standby.stop();
      const response = await get(`pageSize=${pageSize}&page=${page}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { loadNumber: string }[]; totalCount: number; hasMore: boolean };
      totalCount ??= body.totalCount;
      expect(body.totalCount).toBe(totalCount);
      seen.push(...body.data.map((load) => load.loadNumber));
      if (!body.hasMore) break;
    }
    expect(seen.length).toBe(truth.size);
    expect(new Set(seen)).toEqual(new Set(truth.keys()));
    expect(await summed(topology, 'loadfeed_standby_skips_total', { reason: 'down' })).toBeGreaterThan(0);
  });

  it('the primary down: once its check fails (within seconds), SPEC\'s 500 at once through HAProxy; back, the service recovers by itself', async () => {
    await topology.primary.stop();
    try {
      await until('the first instance\'s check finds the primary down', async () => (await fetch(`${topology.instances[0]!.baseUrl}/readyz`)).status === 503, { withinMs: 10_000 });
      for (let request = 0; request < 3; request += 1) {
        const started = Date.now();
        const response = await get('pageSize=1');
        expect(Date.now() - started).toBeLessThan(500);
        expect(response.status).toBe(500);
        expect(await response.json()).toEqual({ error: 'Internal server error' });
      }
    } finally {
      await topology.primary.start();
    }
    await until('the service serves again', async () => (await get('pageSize=1')).status === 200, { withinMs: 15_000 });
  });
});

async function countLoadsRequests(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('loadfeed_http_requests_total{') && line.includes('route="/api/v1/loads"'))
    .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
}
