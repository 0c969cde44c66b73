// A range the comparison reads in full (too many differences to bisect) is read in parts the copy's own
// counts split, so that the loadNumbers it holds at once stay bounded: at most readPartLoads of the
// copy's loads a part (250,000 by default; 20,000 here, so that the test holds 45,000 loads, not 500,000). The counts go to the mock API; the reads are answered from its loads directly (a key walk of
// 45,000 rows through the mock is what removals.test.ts does at smaller sizes).
import { lowerBoundMs, parseInstant, upperBoundMs } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { compareWithFeed } from '../src/removals/find.js';
import type { SyncFilters } from '../src/sync.js';
import { loadInput, mockSetup } from './helpers.js';
import { memoryRemovalCopy } from './removals-copy.js';

const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const ROWS = 45_000;
const pickupOf = (n: number) => new Date(START - 360 * DAY_MS + Math.floor((n * 355 * DAY_MS) / ROWS) + (n % 977) * 1000).toISOString();

/** Whether a pickup date falls within the filters' pickupFrom/pickupTo, as the server draws them. */
function within(pickup: string | null, filters: SyncFilters): boolean {
  if (pickup === null) return filters.pickupFrom === undefined && filters.pickupTo === undefined;
  const ms = Date.parse(pickup);
  if (filters.pickupFrom !== undefined && ms < lowerBoundMs(parseInstant(filters.pickupFrom, { allowDate: true })!)) return false;
  return filters.pickupTo === undefined || ms <= upperBoundMs(parseInstant(filters.pickupTo, { allowDate: true })!);
}

describe('reading a large range for removals', () => {
  it('compares at most 20,000 of the copy\'s loads at once, and still finds every load that left', async () => {
    const setup = mockSetup({ mock: { loads: Array.from({ length: ROWS }, (_, index) => loadInput(index + 1, { scheduledPickupDate: pickupOf(index + 1) })), maxPageSize: 1000, rateLimitPerMinute: 1_000_000_000 } });
    const copy = memoryRemovalCopy();
    copy.upsert(setup.mock.loads());
    const gone = Array.from({ length: 3_000 }, (_, index) => `L${String(index * 15 + 7).padStart(6, '0')}`);
    setup.mock.remove(gone);
    let largest = 0;
    const listLoads = copy.removals.listLoads;
    copy.removals.listLoads = (span) => {
      const listed = listLoads(span) as string[];
      largest = Math.max(largest, listed.length);
      return listed;
    };

    const found = await compareWithFeed({
      client: setup.client,
      copy: copy.removals,
      filters: {},
      pageSize: 100,
      call: {},
      readPartLoads: 20_000,
      cursor: () => undefined,
      read: async (filters) => new Set(setup.mock.loads().filter((load) => within(load.scheduledPickupDate, filters)).map((load) => load.loadNumber)),
    });

    expect(largest).toBeGreaterThan(10_000);
    expect(largest).toBeLessThanOrEqual(20_000);
    // Loads of the window's first day are never judged (README "Removals").
    expect(found.loadNumbers.length).toBeGreaterThan(2_950);
    expect(found.loadNumbers.every((loadNumber) => gone.includes(loadNumber))).toBe(true);
  });
});
