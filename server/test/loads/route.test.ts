import { DEFAULT_MAX_PAGE_SIZE, LOAD_FIELDS, PAGE_SIZE_CEILING, type LoadPage } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDatabaseMillisecond } from '../../src/testing/database-clock.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, asChecked, startApp, testClock, type TestApp } from '../support/app.js';

function pageOf(response: { payload: string }): LoadPage {
  return JSON.parse(response.payload) as LoadPage;
}

describe('GET /api/v1/loads', () => {
  const database = useTestDatabase();
  let app: TestApp;
  let key: string;
  let otherKey: string;
  // The feed window on this clock starts 2025-06-15T00:00:00.000Z.
  const clock = testClock('2026-06-15T12:00:00.000Z');

  async function list(query = '', withKey = key): Promise<LoadPage> {
    const response = await app.get(`/api/v1/loads${query}`, withKey);
    expect(checkResponse(asChecked(response))).toEqual([]);
    expect(response.statusCode).toBe(200);
    return pageOf(response);
  }

  beforeAll(async () => {
    app = await startApp(database.url, { clock });
    await app.customer('acme');
    await app.customer('globex');
    key = (await app.key('acme')).key;
    otherKey = (await app.key('globex')).key;
    await app.load('acme', [
      aLoad('A-full', {
        poNumber: 'PO-1', billingRefNumber: 'BR-1', originCity: 'Dallas', originState: 'TX', originZip: '75201',
        originWarehouse: 'DFW-1', destinationCity: 'Denver', destinationState: 'CO', destinationZip: '80202',
        destinationWarehouse: null, status: 'Delivered', scheduledPickupDate: '2026-03-01T08:00:00Z',
        scheduledPickupTime: '08:00', scheduledDeliveryDate: '2026-03-03T16:30:00.250+01:00', scheduledDeliveryTime: '16:30',
        tenderedDate: '2026-02-20T10:00:00Z', actualPickupDate: '2026-03-01T08:15:00Z', actualDeliveryDate: '2026-03-03T15:00:00Z',
        requestedDeliveryDate: '2026-03-03T00:00:00Z', miles: '781.50', totalCost: '2450.00',
      }),
      aLoad('A-window-start', { scheduledPickupDate: '2025-06-15T00:00:00.000Z', status: 'Covered' }),
      aLoad('A-before-window', { scheduledPickupDate: '2025-06-14T23:59:59.999Z' }),
      aLoad('A-no-pickup', { scheduledPickupDate: null }),
      aLoad('A-future', { scheduledPickupDate: '2027-01-01T00:00:00Z', status: 'PrePlanning', poNumber: 'PO-2' }),
    ]);
    await app.load('globex', [aLoad('G-1', { poNumber: 'PO-1' })]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serializes every field: present, null when empty, date-times in UTC with ms and Z, decimals as written, no createdAt', async () => {
    const page = await list('?poNumber=PO-1');
    expect(page.data).toHaveLength(1);
    const load = page.data[0]!;
    expect(Object.keys(load)).toEqual([...LOAD_FIELDS]);
    expect(load).toMatchObject({
      loadNumber: 'A-full', destinationWarehouse: null, scheduledPickupDate: '2026-03-01T08:00:00.000Z',
      scheduledDeliveryDate: '2026-03-03T15:30:00.250Z', miles: '781.50', totalCost: '2450.00', status: 'Delivered',
    });
    expect(load.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('returns only the key\'s own customer\'s loads', async () => {
    expect((await list('', otherKey)).data.map((load) => load.loadNumber)).toEqual(['G-1']);
    expect((await list()).data.every((load) => load.loadNumber.startsWith('A-'))).toBe(true);
  });

  it('covers pickups from today (UTC) minus 12 months on, future ones included, and no load without a pickup date', async () => {
    const numbers = (await list()).data.map((load) => load.loadNumber).sort();
    expect(numbers).toEqual(['A-full', 'A-future', 'A-window-start']);
  });

  it('never widens the window with pickupFrom', async () => {
    const numbers = (await list('?pickupFrom=2020-01-01')).data.map((load) => load.loadNumber).sort();
    expect(numbers).toEqual(['A-full', 'A-future', 'A-window-start']);
  });

  it('moves the window with the clock: a load ages out the day after its pickup turns 12 months old', async () => {
    clock.set('2026-06-16T00:00:00.000Z');
    try {
      expect((await list()).data.map((load) => load.loadNumber)).not.toContain('A-window-start');
    } finally {
      clock.set('2026-06-15T12:00:00.000Z');
    }
  });

  it('orders by updatedAt, then by insertion, stable across pages', async () => {
    const all = (await list()).data;
    const stamps = all.map((load) => load.updatedAt);
    expect([...stamps].sort()).toEqual(stamps);
    // One import stamps its rows as it writes them, in order; rows stamped in one millisecond fall in
    // the order they were inserted.
    expect(all.map((load) => load.loadNumber)).toEqual(['A-full', 'A-window-start', 'A-future']);
    const paged = [...(await list('?pageSize=1&page=1')).data, ...(await list('?pageSize=1&page=2')).data, ...(await list('?pageSize=1&page=3')).data];
    expect(paged).toEqual(all);
  });

  it('matches any of several statuses (OR) and ANDs the other filters', async () => {
    expect((await list('?status=Covered&status=PrePlanning')).data.map((load) => load.loadNumber).sort()).toEqual(['A-future', 'A-window-start']);
    expect((await list('?status=Covered&status=PrePlanning&poNumber=PO-2')).data.map((load) => load.loadNumber)).toEqual(['A-future']);
    expect((await list('?status=Cancelled')).totalCount).toBe(0);
  });

  it('matches poNumber and billingRefNumber exactly', async () => {
    expect((await list('?poNumber=PO-1')).data.map((load) => load.loadNumber)).toEqual(['A-full']);
    expect((await list('?poNumber=po-1')).totalCount).toBe(0);
    expect((await list('?billingRefNumber=BR-1')).data.map((load) => load.loadNumber)).toEqual(['A-full']);
    expect((await list('?billingRefNumber=BR')).totalCount).toBe(0);
  });

  it('reads a date alone in pickupTo and deliveryTo as the whole day, and in pickupFrom and deliveryFrom as its start', async () => {
    expect((await list('?pickupFrom=2026-03-01&pickupTo=2026-03-01')).data.map((load) => load.loadNumber)).toEqual(['A-full']);
    expect((await list('?pickupFrom=2026-03-02&pickupTo=2026-03-02')).totalCount).toBe(0);
    expect((await list('?deliveryFrom=2026-03-03&deliveryTo=2026-03-03')).data.map((load) => load.loadNumber)).toEqual(['A-full']);
    expect((await list('?deliveryTo=2026-03-02')).totalCount).toBe(0);
    expect((await list('?pickupTo=2026-03-01T07:59:59.999Z&pickupFrom=2026-01-01')).totalCount).toBe(0);
    expect((await list('?pickupTo=2026-03-01T08:00:00Z&pickupFrom=2026-01-01')).totalCount).toBe(1);
  });

  it('returns loads updated at or after updatedSince', async () => {
    // A row written in this very millisecond is past the settled horizon until the database's clock moves on.
    await nextDatabaseMillisecond(app.pool);
    const all = (await list()).data;
    for (const { updatedAt } of all) {
      expect((await list(`?updatedSince=${encodeURIComponent(updatedAt)}`)).totalCount).toBe(all.filter((load) => load.updatedAt >= updatedAt).length);
    }
    const after = new Date(Date.parse(all[all.length - 1]!.updatedAt) + 1).toISOString();
    expect((await list(`?updatedSince=${encodeURIComponent(after)}`)).totalCount).toBe(0);
  });

  it('pages with an exact totalCount and hasMore', async () => {
    expect(await list('?pageSize=2')).toMatchObject({ page: 1, pageSize: 2, totalCount: 3, hasMore: true });
    const second = await list('?pageSize=2&page=2');
    expect(second).toMatchObject({ page: 2, pageSize: 2, totalCount: 3, hasMore: false });
    expect(second.data).toHaveLength(1);
  });

  it('answers a page past the last with 200, no rows, hasMore false and the usual totalCount', async () => {
    expect(await list('?page=50&pageSize=2')).toEqual({ data: [], page: 50, pageSize: 2, totalCount: 3, hasMore: false });
    expect(await list('?page=9007199254740991&pageSize=100')).toMatchObject({ data: [], totalCount: 3, hasMore: false });
  });

  it('clamps a pageSize above the maximum and echoes the effective one', async () => {
    expect((await list('?pageSize=5000')).pageSize).toBe(DEFAULT_MAX_PAGE_SIZE);
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await app.server.inject({ method: 'HEAD', url: '/api/v1/loads', headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode).toBe(200);
    expect(response.payload).toBe('');
  });

  it('tells a client whose unencoded "+" arrived as a space to encode it as %2B, quoting what it sent', async () => {
    const plus = await app.get('/api/v1/loads?updatedSince=2026-01-01T00:00:00+14:00', key);
    expect(plus.statusCode).toBe(400);
    expect(checkResponse(asChecked(plus))).toEqual([]);
    expect(JSON.parse(plus.payload)).toEqual({ error: 'Invalid query parameters', details: [expect.stringContaining('%2B')] });
    expect((await app.get('/api/v1/loads?updatedSince=2026-01-01T00:00:00%2B14:00', key)).statusCode).toBe(200);
    const huge = await app.get('/api/v1/loads?pageSize=1e400', key);
    expect(huge.statusCode).toBe(400);
    expect(JSON.parse(huge.payload)).toEqual({ error: 'Invalid query parameters', details: [expect.stringContaining('(got "1e400")')] });
  });
});

describe('GET /api/v1/loads with MAX_PAGE_SIZE set', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url, { env: { MAX_PAGE_SIZE: String(PAGE_SIZE_CEILING) } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`clamps to the configured maximum, up to the contract ceiling of ${PAGE_SIZE_CEILING}`, async () => {
    await app.customer('acme');
    const { key } = await app.key('acme');
    const response = await app.get('/api/v1/loads?pageSize=999999', key);
    expect(checkResponse(asChecked(response))).toEqual([]);
    expect(pageOf(response).pageSize).toBe(PAGE_SIZE_CEILING);
  });
});

