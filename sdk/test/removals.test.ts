import { feedWindowStart } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { syncLoads } from '../src/index.js';
import { loadInput, mockSetup } from './helpers.js';
import { memoryRemovalCopy } from './removals-copy.js';

const DAY_MS = 86_400_000;
/** The mock's simulated clock starts on 2026-01-01: pickups spread over its window, a few in the future. */
const START = Date.UTC(2026, 0, 1);
const pickupOf = (n: number, count: number) => new Date(START - 360 * DAY_MS + Math.floor((n * 370 * DAY_MS) / count) + (n % 977) * 1000).toISOString();
const loads = (count: number) => Array.from({ length: count }, (_, index) => loadInput(index + 1, { scheduledPickupDate: pickupOf(index + 1, count) }));

async function syncedCopy(count: number, maxPageSize = 100) {
  const setup = mockSetup({ mock: { loads: loads(count), maxPageSize, rateLimitPerMinute: 100_000 } });
  const copy = memoryRemovalCopy();
  // Each run starts well after the last write, so that its delta holds only what changed (not the 5-minute overlap).
  const sync = async () => {
    await setup.clock.advance(10 * 60_000);
    return syncLoads({ client: setup.client, upsert: (rows) => copy.upsert(rows), cursorStore: store, removals: copy.removals });
  };
  const saved: { cursor?: string } = {};
  const store = { load: () => saved.cursor, save: (cursor: string) => void (saved.cursor = cursor) };
  // One later write, so that the cursor stands 10 minutes past the bulk of the loads and a delta re-reads only it.
  await setup.clock.advance(10 * 60_000);
  setup.mock.upsert([loadInput(count + 1, { scheduledPickupDate: pickupOf(count, count) })]);
  await sync();
  return { ...setup, copy, sync, served: () => setup.mock.loads().map((load) => load.loadNumber).sort() };
}

describe('removals: what leaves the feed leaves the copy', () => {
  it('deleted loads and a pickup moved 13 months back are marked removed; the copy then equals the feed', async () => {
    const { mock, copy, sync, served } = await syncedCopy(2_000);
    mock.remove(['L000010', 'L000500', 'L001999']);
    mock.upsert([loadInput(700, { scheduledPickupDate: new Date(START - 395 * DAY_MS).toISOString() })]);
    const summary = await sync();
    expect(summary).toMatchObject({ removalsPending: 0, removed: 4 });
    expect([...copy.removed.keys()].sort()).toEqual(['L000010', 'L000500', 'L000700', 'L001999']);
    expect(copy.unmarked()).toEqual(served());
  });

  it('nothing removed costs one request more than the sync alone', async () => {
    const { client, copy, sync } = await syncedCopy(2_000);
    const before = client.stats().requests;
    const summary = await sync();
    expect(summary.removed).toBe(0);
    expect(client.stats().requests - before).toBe(summary.requests);
    const plain = await syncLoads({ client, upsert: (rows) => copy.upsert(rows) });
    // The plain sync starts without a cursor, so compare against a delta run of the same shape.
    expect(plain.removed).toBe(0);
    const delta = await syncLoads({ client, upsert: (rows) => copy.upsert(rows), cursorStore: { load: () => plain.cursor, save: () => {} } });
    expect(summary.requests).toBe(delta.requests + 1);
  });

  it('a removed load that comes back is unmarked, and one that aged out stays unmarked', async () => {
    const { mock, copy, sync, served } = await syncedCopy(500);
    mock.remove(['L000100']);
    expect((await sync()).removed).toBe(1);
    mock.upsert([loadInput(100, { scheduledPickupDate: pickupOf(100, 500) })]);
    await sync();
    expect(copy.removed.has('L000100')).toBe(false);
    // A row the copy kept from before the window: history, never compared.
    copy.rows.set('OLD1', { ...copy.rows.get('L000001')!, loadNumber: 'OLD1', scheduledPickupDate: new Date(START - 500 * DAY_MS).toISOString() });
    expect((await sync()).removed).toBe(0);
    expect(copy.removed.has('OLD1')).toBe(false);
    expect(copy.unmarked().filter((n) => n !== 'OLD1')).toEqual(served());
  });

  it('with --delete-removed the loads are deleted from the copy', async () => {
    const { mock, copy, client } = await syncedCopy(300);
    mock.remove(['L000001', 'L000150']);
    const summary = await syncLoads({ client, upsert: (rows) => copy.upsert(rows), removals: copy.removals, deleteRemoved: true });
    expect(summary.removed).toBe(2);
    expect(copy.rows.has('L000001') || copy.rows.has('L000150')).toBe(false);
    expect(copy.removed.size).toBe(0);
  });

  it('a load that leaves a sync filter is marked removed', async () => {
    const setup = mockSetup({ mock: { loads: loads(400), rateLimitPerMinute: 100_000 } });
    const copy = memoryRemovalCopy();
    const filters = { status: ['Available' as const, 'Covered' as const] };
    await syncLoads({ client: setup.client, filters, upsert: (rows) => copy.upsert(rows), removals: copy.removals });
    const leaving = [...copy.rows.keys()][3]!;
    setup.mock.upsert([loadInput(Number(leaving.slice(1)), { status: 'Cancelled', scheduledPickupDate: copy.rows.get(leaving)!.scheduledPickupDate })]);
    const summary = await syncLoads({ client: setup.client, filters, upsert: (rows) => copy.upsert(rows), removals: copy.removals });
    expect(summary.removed).toBe(1);
    expect([...copy.removed.keys()]).toEqual([leaving]);
  });

  it("never judges the window's first day: a load deleted there stays unmarked", async () => {
    const { mock, copy, sync, client } = await syncedCopy(200);
    const windowStart = feedWindowStart(new Date(client.serverNow())).getTime();
    mock.upsert([loadInput(900, { scheduledPickupDate: new Date(windowStart + 3_600_000).toISOString() })]);
    await sync();
    expect(copy.rows.has('L000900')).toBe(true);
    mock.remove(['L000900', 'L000150']);
    expect((await sync()).removed).toBe(1);
    expect([...copy.removed.keys()]).toEqual(['L000150']);
  });

  it('on a deployment that does not say how far its feed is settled, a load found absent waits (pending), marked by no run', async () => {
    const setup = mockSetup({ mock: { loads: loads(300), rateLimitPerMinute: 100_000, settledThroughHeader: false } });
    const copy = memoryRemovalCopy();
    const cursorStore = { saved: undefined as string | undefined, load() { return this.saved; }, save(cursor: string) { this.saved = cursor; } };
    const sync = () => syncLoads({ client: setup.client, cursorStore, upsert: (rows) => copy.upsert(rows), removals: copy.removals });
    await sync();
    setup.mock.remove(['L000007']);
    expect(await sync()).toMatchObject({ removed: 0, removalsPending: 1 });
    expect(copy.removed.size).toBe(0);
  });

  it('rows the copy lacks behind its cursor (a walk that never saw them) are found by the counts and written: recovered', async () => {
    const { copy, sync, served, client } = await syncedCopy(2_000);
    copy.rows.delete('L000321');
    copy.rows.delete('L001700');
    const before = client.stats().requests;
    const summary = await sync();
    expect(summary).toMatchObject({ recovered: 2, removed: 0, removalsPending: 0 });
    expect(copy.unmarked()).toEqual(served());
    // The delta, the count (and of rows since the cursor), the catch-up, both counts again, and at most a
    // full read (2 in 2,000 cost about that to bisect).
    expect(client.stats().requests - before).toBeLessThanOrEqual(6 + Math.ceil(2_000 / 99) + 2);
    expect(await sync()).toMatchObject({ recovered: 0 });
  });

  it('a load written between the walk and the count costs one count more: no catch-up, no read', async () => {
    let writeBeforeCount: (() => void) | undefined;
    const setup = mockSetup({
      mock: { loads: loads(2_000), rateLimitPerMinute: 100_000 },
      client: {
        fetch: (request) => {
          if (new URL(request.url).searchParams.has('pickupFrom') && writeBeforeCount) {
            writeBeforeCount();
            writeBeforeCount = undefined;
          }
          return setup.mock.fetch(request);
        },
      },
    });
    const copy = memoryRemovalCopy();
    const saved: { cursor?: string } = {};
    const cursorStore = { load: () => saved.cursor, save: (cursor: string) => void (saved.cursor = cursor) };
    const sync = async () => {
      await setup.clock.advance(10 * 60_000);
      return syncLoads({ client: setup.client, upsert: (rows) => copy.upsert(rows), cursorStore, removals: copy.removals });
    };
    await sync();
    // One later write, so that the cursor stands 10 minutes past the bulk of the loads and a delta re-reads only it.
    setup.mock.upsert([loadInput(2_001, { scheduledPickupDate: pickupOf(2_000, 2_000) })]);
    await sync();
    writeBeforeCount = () => setup.mock.upsert([loadInput(5_000, { scheduledPickupDate: pickupOf(1_000, 2_000) })]);
    const delta = (await sync()).requests;
    // The delta, the range's count, and its count of rows stamped after the cursor.
    expect(delta).toBe(3);
    expect(copy.rows.has('L005000')).toBe(false);
    expect(await sync()).toMatchObject({ removed: 0, recovered: 0 });
    expect(copy.rows.has('L005000')).toBe(true);
  });

  it('k removals among N cost about k·log2(N / page) count requests, never more than a full read + 2', async () => {
    const { mock, client, sync, copy, served } = await syncedCopy(5_000);
    const fullRead = Math.ceil(5_000 / 99);
    mock.remove(['L000042']);
    const before = client.stats().requests;
    expect((await sync()).removed).toBe(1);
    const one = client.stats().requests - before;
    // The delta, the window's count, two counts a level down to a page, that page, the catch-up.
    expect(one).toBeLessThanOrEqual(1 + 1 + 2 * (Math.ceil(Math.log2(5_000 / 100)) + 1) + 1 + 1);
    mock.remove(Array.from({ length: 400 }, (_, index) => `L${String(index * 12 + 5).padStart(6, '0')}`));
    const again = client.stats().requests;
    expect((await sync()).removed).toBe(400);
    expect(client.stats().requests - again).toBeLessThanOrEqual(fullRead + 2 + 2);
    expect(copy.unmarked()).toEqual(served());
  });
});
