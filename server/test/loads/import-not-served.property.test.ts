// The import counts the loads the feed will not serve on the import's day: a scheduledPickupDate before
// the window's first instant (feedWindowStart, @loadfeed/spec), or none. The count is the window rule's,
// to the millisecond around its start, for any day of the import, in batches of any size.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedWindowStart } from '@loadfeed/spec';
import { importLoadLines } from '../../src/loads/import.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

const DAY = 86_400_000;

describe("an import's count of the loads the feed will not serve", () => {
  const database = useTestDatabase();
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts a pickup one millisecond before the window, not one at its start; and a load with none', async () => {
    const now = new Date('2027-03-31T18:00:00.000Z');
    const start = feedWindowStart(now);
    expect(start.toISOString()).toBe('2026-03-31T00:00:00.000Z');
    const loads = [
      aLoad('EDGE-OUT', { scheduledPickupDate: new Date(start.getTime() - 1).toISOString() }),
      aLoad('EDGE-IN', { scheduledPickupDate: start.toISOString() }),
      aLoad('NONE', { scheduledPickupDate: null }),
      aLoad('LATER', { scheduledPickupDate: '2027-09-01T00:00:00.000Z' }),
    ];
    const { notServed } = await importLoadLines(app.pool, 'acme', loads.map((value, index) => ({ line: index + 1, value })), { now });
    expect(notServed).toEqual({ beforeWindow: 1, noPickupDate: 1, windowStart: '2026-03-31' });
  });

  it("equals the window rule's count for any day and any pickups, whatever the batch size", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('2001-01-01T00:00:00.000Z'), max: new Date('2098-12-31T00:00:00.000Z'), noInvalidDate: true }),
        // Pickups within two days of the window's start (either side, its first millisecond and the one before), none, or far from it.
        fc.array(fc.oneof(fc.integer({ min: -2 * DAY, max: 2 * DAY }), fc.constant(null), fc.constantFrom(-1, 0, -400 * DAY, 400 * DAY)), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 2_000 }),
        async (now, offsets, batchCharacters) => {
          round += 1;
          const start = feedWindowStart(now).getTime();
          const loads = offsets.map((offset, index) =>
            aLoad(`R${round}-${index}`, { scheduledPickupDate: offset === null ? null : new Date(start + offset).toISOString() }),
          );
          const { notServed } = await importLoadLines(app.pool, 'acme', loads.map((value, index) => ({ line: index + 1, value })), { now, batchCharacters });
          expect(notServed).toEqual({
            beforeWindow: offsets.filter((offset) => offset !== null && offset < 0).length,
            noPickupDate: offsets.filter((offset) => offset === null).length,
            windowStart: new Date(start).toISOString().slice(0, 10),
          });
        },
      ),
      { numRuns: 25 },
    );
  });
});
