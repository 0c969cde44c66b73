import { describe, expect, it } from 'vitest';
import { rangeParams, splitRange } from '../src/removals/ranges.js';
import { bisectingCosts } from '../src/removals/find.js';
import { loadInput, mockSetup } from './helpers.js';

const DAY_MS = 86_400_000;
const D = Date.UTC(2025, 5, 10);

describe('pickup ranges as the feed is asked to count them', () => {
  it('sends whole days as dates (pickupTo covering its day) and anything else as full millisecond date-times', () => {
    expect(rangeParams({ from: D, before: D + 3 * DAY_MS })).toEqual({ pickupFrom: '2025-06-10', pickupTo: '2025-06-12' });
    expect(rangeParams({ from: D, before: undefined })).toEqual({ pickupFrom: '2025-06-10' });
    expect(rangeParams({ from: D + 5, before: D + DAY_MS })).toEqual({ pickupFrom: '2025-06-10T00:00:00.005Z', pickupTo: '2025-06-10T23:59:59.999Z' });
  });

  it('splits at a day boundary while a range spans two days or more, then at milliseconds, down to one', () => {
    expect(splitRange({ from: D, before: D + 5 * DAY_MS }, undefined)).toEqual([
      { from: D, before: D + 3 * DAY_MS },
      { from: D + 3 * DAY_MS, before: D + 5 * DAY_MS },
    ]);
    expect(splitRange({ from: D, before: D + 3 }, undefined)).toEqual([
      { from: D, before: D + 1 },
      { from: D + 1, before: D + 3 },
    ]);
    expect(splitRange({ from: D, before: D + 1 }, undefined)).toBeUndefined();
    // An open range splits as if it ended the day after the copy's latest pickup; its upper half stays open.
    expect(splitRange({ from: D, before: undefined }, D + 9 * DAY_MS + 5)).toEqual([
      { from: D, before: D + 5 * DAY_MS },
      { from: D + 5 * DAY_MS, before: undefined },
    ]);
  });

  it('reads a range rather than bisect it where bisecting would cost more requests than the read', () => {
    expect(bisectingCosts(1, 150_000, 100)).toBeLessThan(30);
    expect(bisectingCosts(1_000, 150_000, 100)).toBeGreaterThan(1_500);
  });

  it('the msw mock counts pickup ranges as the server draws them (dates cover whole days, date-times are inclusive)', async () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const pickups = [D - 1, D, D + DAY_MS - 1, D + DAY_MS, D + 2 * DAY_MS + 7];
    const { client } = mockSetup({ mock: { loads: pickups.map((ms, index) => loadInput(index + 1, { scheduledPickupDate: at(ms) })) } });
    const count = async (params: Parameters<typeof rangeParams>[0]) => (await client.listLoads({ ...rangeParams(params), pageSize: 1 })).totalCount;
    expect(await count({ from: D, before: D + DAY_MS })).toBe(2);
    expect(await count({ from: D, before: D + 2 * DAY_MS })).toBe(3);
    expect(await count({ from: D, before: undefined })).toBe(4);
    expect(await count({ from: D + 1, before: D + DAY_MS })).toBe(1);
    expect(await count({ from: D + 2 * DAY_MS + 7, before: D + 2 * DAY_MS + 8 })).toBe(1);
    expect(await count({ from: D + 2 * DAY_MS, before: D + 2 * DAY_MS + 7 })).toBe(0);
  });
});
