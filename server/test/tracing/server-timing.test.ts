// SERVER_TIMING=on: feed responses say how long their statements took (Server-Timing: admission, count,
// page, in milliseconds); off (the default), no response carries the header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

const METRIC = (name: string) => `${name};dur=\\d+\\.\\d{2}`;

describe('Server-Timing', () => {
  const database = useTestDatabase();
  let timed: TestApp;
  let untimed: TestApp;
  let key: string;

  beforeAll(async () => {
    timed = await startApp(database.url, { env: { SERVER_TIMING: 'on' } });
    untimed = await startApp(database.url);
    await timed.customer('acme');
    key = (await timed.key('acme')).key;
    await timed.load('acme', [aLoad('S-1'), aLoad('S-2'), aLoad('S-3')]);
  });
  afterAll(async () => {
    await timed?.close();
    await untimed?.close();
  });

  it('times the admission and the page of page 1, which reads its count in the same statement', async () => {
    const response = await timed.get('/api/v1/loads?pageSize=1', key);
    expect(response.statusCode).toBe(200);
    expect(response.headers['server-timing']).toMatch(new RegExp(`^${METRIC('admission')}, ${METRIC('page')}$`));
  });

  it('times the count of a later page on its own (a query whose count no earlier page kept)', async () => {
    const response = await timed.get('/api/v1/loads?pageSize=1&page=3&status=Available', key);
    expect(response.headers['server-timing']).toMatch(new RegExp(`^${METRIC('admission')}, ${METRIC('count')}, ${METRIC('page')}$`));
  });

  it('times the admission of a refused query (a 400), and says nothing of a request that ran no statement', async () => {
    const invalid = await timed.get('/api/v1/loads?page=0', key);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['server-timing']).toMatch(new RegExp(`^${METRIC('admission')}$`));
    expect((await timed.get('/api/v1/loads', 'lf_live_malformed')).headers['server-timing']).toBeUndefined();
    expect((await timed.get('/healthz')).headers['server-timing']).toBeUndefined();
  });

  it('is off by default', async () => {
    const response = await untimed.get('/api/v1/loads?pageSize=1&page=3', key);
    expect(response.statusCode).toBe(200);
    expect(response.headers['server-timing']).toBeUndefined();
  });
});
