// More requests than the database can take at once: what the server cannot take is answered at once
// with a 503, SPEC §7's error body and Retry-After, instead of waiting in the pool for a slow 500.
import type { ServerInjectResponse } from '@hapi/hapi';
import { checkErrorBody } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from './support/app.js';
import { arrivals, nextResponse } from './support/arrivals.js';
import { startProxy, type CuttableProxy } from './support/proxy.js';

interface Timed {
  response: ServerInjectResponse;
  ms: number;
}

describe('overload', () => {
  const database = useTestDatabase();
  let proxy: CuttableProxy;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    proxy = await startProxy(database.url);
    app = await startApp(proxy.url, { env: { DB_POOL_SIZE: '2', MAX_QUEUED_REQUESTS: '10', MAX_QUEUE_WAIT_MS: '500' } });
    await app.customer('acme');
    key = (await app.key('acme')).key;
    await app.load('acme', Array.from({ length: 300 }, (_, index) => aLoad(`OV-${index}`)));
  });
  afterAll(async () => {
    proxy?.thaw();
    await app?.close();
    await proxy?.close();
  });

  async function timedGet(url: string): Promise<Timed> {
    const started = performance.now();
    const response = await app.get(url, key);
    return { response, ms: performance.now() - started };
  }

  function expectBusy({ response }: Timed): void {
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkErrorBody(503, JSON.parse(response.payload))).toEqual([]);
  }

  it('answers a burst past its turns and its queue with quick 503s and Retry-After, and the rest with 200s', async () => {
    // A queue wait long enough that every queued request gets its turn, however busy the machine is.
    const patient = await startApp(proxy.url, { env: { DB_POOL_SIZE: '2', MAX_QUEUED_REQUESTS: '10', MAX_QUEUE_WAIT_MS: '30000' } });
    const timedGet = async (url: string): Promise<Timed> => {
      const started = performance.now();
      const response = await patient.get(url, key);
      return { response, ms: performance.now() - started };
    };
    try {
      await checkBurst(patient, timedGet);
    } finally {
      await patient.close();
    }
  });

  async function checkBurst(app: TestApp, timedGet: (url: string) => Promise<Timed>): Promise<void> {
    const burst = await Promise.all(Array.from({ length: 300 }, (_, index) => timedGet(`/api/v1/loads?pageSize=100&page=${(index % 3) + 1}`)));
    const ok = burst.filter(({ response }) => response.statusCode === 200);
    const busy = burst.filter(({ response }) => response.statusCode === 503);
    expect(ok.length + busy.length).toBe(burst.length);
    // 2 at the database and 10 waiting were taken at once; the others were not.
    expect(ok.length).toBeGreaterThanOrEqual(12);
    expect(busy.length).toBeGreaterThan(0);
    for (const refused of busy) expectBusy(refused);
    // Refused without waiting for anything (the burst's slowest 200 took longer than this).
    expect(Math.max(...busy.map(({ ms }) => ms))).toBeLessThan(1_000);
    // Each refusal is logged once, with its reason, at warn.
    const requestId = String(busy[0]!.response.headers['x-request-id']);
    const lines = app.logLines.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level === 40)).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^overloaded/) })]);
    // Afterwards every turn is free again.
    expect((await timedGet('/api/v1/loads?pageSize=100')).response.statusCode).toBe(200);
  }

  it('gives a 503 to a request that waited MAX_QUEUE_WAIT_MS for a turn, while the database does not answer', async () => {
    const arrived = arrivals(app.server);
    proxy.freeze();
    try {
      // Two hold the turns (until the thaw), the next ones wait in the queue.
      const holding = [timedGet('/api/v1/loads'), timedGet('/api/v1/loads')];
      await arrived(2);
      const waiting = await Promise.all([timedGet('/api/v1/loads'), timedGet('/api/v1/loads')]);
      for (const waited of waiting) {
        expectBusy(waited);
        expect(waited.ms).toBeGreaterThanOrEqual(450);
        expect(waited.ms).toBeLessThan(2_000);
      }
      // Thawed well before their queries' deadline (DB_STATEMENT_TIMEOUT_MS + 1 s, 6 s), the held ones are served.
      proxy.thaw();
      for (const held of await Promise.all(holding)) expect(held.response.statusCode).toBe(200);
    } finally {
      proxy.thaw();
    }
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 200; attempt += 1) status = (await timedGet('/api/v1/loads')).response.statusCode;
    expect(status).toBe(200);
  });

  it('lets a request that is still waiting have the place of one whose client left the queue', async () => {
    const small = await startApp(proxy.url, { env: { PORT: '0', DB_POOL_SIZE: '2', MAX_QUEUED_REQUESTS: '1', MAX_QUEUE_WAIT_MS: '5000' } });
    await small.server.start();
    const arrived = arrivals(small.server);
    proxy.freeze();
    try {
      const get = () => small.get('/api/v1/loads', key);
      const holding = [get(), get()];
      await arrived(2);
      // A client takes the one place in the queue, then gives up.
      const leaving = new AbortController();
      const left = fetch(`http://127.0.0.1:${small.server.info.port}/api/v1/loads`, { headers: { authorization: `Bearer ${key}` }, signal: leaving.signal }).catch(
        () => 'aborted',
      );
      await arrived(3);
      // hapi ends the request of a client that left with its 499.
      const released = nextResponse(small.server, 499);
      leaving.abort();
      expect(await left).toBe('aborted');
      await released;
      // Its place is free: this one waits for a turn instead of getting a 503 at once.
      const waiting = get();
      await arrived(4);
      proxy.thaw();
      expect((await waiting).statusCode).toBe(200);
      await Promise.all(holding);
    } finally {
      proxy.thaw();
      await small.close();
    }
  });
});
