// Requests to find k removals among N loads from counts (sdk/src/removals/), against the mock API in
// simulated time: a copy equal to the feed, then k loads deleted, then one sync. Printed beside it: the
// same sync on a copy with nothing removed (today's sync is its delta alone) and a full read of the feed
// by the key walk, ceil(N / (max - 1)) + 1 requests.
import { memoryCursorStore, syncLoads, type PickupSpan, type RemovalCopy } from '@loadfeed/sdk';
import { createMockApi, createSimulatedClock, MOCK_API_KEY, type LoadInput } from '@loadfeed/sdk/mock';
import { createClient } from '@loadfeed/sdk';
import { benchLoad } from './fixtures.js';

const DAY_MS = 86_400_000;

export interface RemovalsResult {
  rows: number;
  maxPageSize: number;
  removed: number;
  requests: number;
  /** The same run's delta alone (today's sync). */
  deltaRequests: number;
  fullRead: number;
  found: number;
}

/** A copy with its pickups sorted, so that a count is two binary searches. */
function sortedCopy(loads: readonly LoadInput[]) {
  let entries = loads.map((load) => ({ loadNumber: load.loadNumber, pickup: Date.parse(load.scheduledPickupDate!) })).sort((a, b) => a.pickup - b.pickup);
  const removed = new Set<string>();
  const firstAtOrAfter = (ms: number) => {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (entries[middle]!.pickup < ms) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const slice = (span: PickupSpan) => (span === 'none' ? [] : entries.slice(firstAtOrAfter(span.from), span.before === undefined ? entries.length : firstAtOrAfter(span.before)));
  const copy: RemovalCopy = {
    countLoads: (span) => (span === 'none' ? 0 : (span.before === undefined ? entries.length : firstAtOrAfter(span.before)) - firstAtOrAfter(span.from)),
    listLoads: (span) => slice(span).map((entry) => entry.loadNumber),
    latestPickup: () => (entries.length === 0 ? undefined : new Date(entries.at(-1)!.pickup).toISOString()),
    markRemoved(loadNumbers) {
      for (const loadNumber of loadNumbers) removed.add(loadNumber);
      entries = entries.filter((entry) => !removed.has(entry.loadNumber));
    },
    removedAmong: (loadNumbers) => new Set(loadNumbers.filter((loadNumber) => removed.has(loadNumber))),
  };
  return { copy, removed };
}

export async function removalRequests(rows: number, maxPageSize: number, removals: number): Promise<RemovalsResult> {
  const clock = createSimulatedClock();
  const mock = createMockApi({ clock, rateLimitPerMinute: 1_000_000_000, maxPageSize });
  // Pickups spread over the window's days (from its third day on), a few seconds apart within a day.
  const loads = Array.from({ length: rows }, (_, index) => benchLoad(index + 1, new Date(clock.now() - 362 * DAY_MS + Math.floor((index * 360 * DAY_MS) / rows)).toISOString()));
  for (let first = 0; first < rows; first += 1000) mock.upsert(loads.slice(first, first + 1000));
  await clock.advance(10 * 60_000);
  // One later write, so that the copy's cursor stands past the overlap of the bulk.
  const marker = benchLoad(rows + 1, loads[0]!.scheduledPickupDate!);
  mock.upsert([marker]);
  const cursor = mock.loads().at(-1)!.updatedAt;
  await clock.advance(10 * 60_000);
  const { copy, removed } = sortedCopy([...loads, marker]);
  const gone: string[] = [];
  for (let index = 0; index < removals; index += 1) gone.push(loads[Math.floor(((index + 0.5) * rows) / removals)]!.loadNumber);
  mock.remove(gone);

  const client = createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch: (request) => mock.fetch(request) });
  const delta = await syncLoads({ client, cursorStore: memoryCursorStore(cursor), upsert: () => {} });
  const summary = await syncLoads({ client, cursorStore: memoryCursorStore(cursor), upsert: () => {}, removals: copy });
  return {
    rows,
    maxPageSize,
    removed: removals,
    requests: summary.requests,
    deltaRequests: delta.requests,
    fullRead: Math.ceil((rows + 1) / (maxPageSize - 1)) + 1,
    found: gone.every((loadNumber) => removed.has(loadNumber)) && removed.size === removals ? summary.removed : -1,
  };
}
