// The concurrency gate is fair between keys: one key's burst waits behind its own requests, not in front
// of another customer's. Real requests against real PostgreSQL, reached through a proxy that the test
// freezes so that the burst is certainly queued when the other customer's request arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';
import { startProxy, type CuttableProxy } from '../support/proxy.js';

describe('a fair share of the database per key', () => {
  const database = useTestDatabase();
  let proxy: CuttableProxy;
  let app: TestApp;
  let burstKey: string;
  let otherKey: string;

  beforeAll(async () => {
    proxy = await startProxy(database.url);
    app = await startApp(proxy.url, { env: { DB_POOL_SIZE: '2', MAX_QUEUED_REQUESTS: '20', MAX_QUEUE_WAIT_MS: '60000' } });
    for (const code of ['burst', 'other']) {
      await app.customer(code);
      await app.load(code, Array.from({ length: 30 }, (_, index) => aLoad(`${code}-${index}`)));
    }
    burstKey = (await app.key('burst')).key;
    otherKey = (await app.key('other')).key;
  });
  afterAll(async () => {
    proxy?.thaw();
    await app?.close();
    await proxy?.close();
  });

  /** Whether `predicate` holds within a few seconds, checked every few milliseconds. */
  async function eventually(predicate: () => boolean): Promise<void> {
    for (let tries = 0; tries < 500 && !predicate(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(predicate()).toBe(true);
  }

  it("another key's request takes the next free turn and a place in a queue full of one key's burst", async () => {
    const finished: string[] = [];
    const statuses = new Map<string, number>();
    const get = (name: string, key: string) =>
      app.get('/api/v1/loads?pageSize=30', key).then((response) => {
        finished.push(name);
        statuses.set(name, response.statusCode);
      });
    proxy.freeze();
    let requests: Array<Promise<void>> = [];
    try {
      // 2 turns and 20 places in the queue: the burst takes them all, and one more is refused.
      requests = Array.from({ length: 23 }, (_, index) => get(`burst-${index}`, burstKey));
      await eventually(() => finished.length === 1);
      expect(finished[0]).toMatch(/^burst-/);
      expect(statuses.get(finished[0]!)).toBe(503);
      // The queue is full of the burst's requests; the other key's gets a place (the burst's latest arrival
      // gives it up, with a 503) instead of a 503.
      requests.push(get('other', otherKey));
      await eventually(() => finished.length === 2);
      expect(finished[1]).toMatch(/^burst-/);
      expect(statuses.get(finished[1]!)).toBe(503);
    } finally {
      proxy.thaw();
    }
    await Promise.all(requests);
    expect(statuses.get('other')).toBe(200);
    // The first turn that freed went to the other key (it held none), ahead of the 19 burst requests queued
    // before it; in one queue it would finish last. Two turns run at once, so the order requests finish in
    // shows the order of their turns only to within a few places.
    const servedAfterThaw = finished.slice(2).filter((name) => statuses.get(name) === 200);
    expect(servedAfterThaw.indexOf('other')).toBeLessThanOrEqual(5);
    // The burst's 2 that held the turns and its 19 still queued, and the other key's one.
    expect(servedAfterThaw).toHaveLength(22);
  });
});
