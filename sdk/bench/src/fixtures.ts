// What every part of the benchmark shares: a mock API in simulated time filled with N loads, and a client on it.
import { LOAD_STATUSES } from '@loadfeed/spec';
import { createClient, type LoadfeedClient } from '@loadfeed/sdk';
import { MOCK_API_KEY, createMockApi, createSimulatedClock, type LoadInput, type MockApi, type SimulatedClock } from '@loadfeed/sdk/mock';

const DAY_MS = 86_400_000;

export function benchLoad(n: number, pickup: string): LoadInput {
  return {
    loadNumber: `BL${String(n).padStart(8, '0')}`,
    status: LOAD_STATUSES[n % LOAD_STATUSES.length]!,
    poNumber: `PO-${n}`,
    billingRefNumber: `BR-${n % 9973}`,
    originCity: 'Dallas',
    originState: 'TX',
    originZip: '75201',
    destinationCity: 'Memphis',
    destinationState: 'TN',
    destinationZip: '38103',
    scheduledPickupDate: pickup,
    scheduledPickupTime: '08:30',
    miles: String(450 + (n % 700)),
    totalCost: `${1200 + (n % 5000)}.50`,
  };
}

export interface Fixture {
  clock: SimulatedClock;
  mock: MockApi;
  client(fetch?: (request: Request) => Promise<Response>): LoadfeedClient;
}

/**
 * `rows` loads written `perWrite` at a time (each write stamps its rows with one updatedAt), a ms apart; the
 * mock serves pages of up to `maxPageSize` (default 100) and says how far its feed is settled unless
 * `settledThroughHeader` is false.
 */
export async function fixture(rows: number, perWrite: number, rateLimitPerMinute: number, maxPageSize?: number, settledThroughHeader = true): Promise<Fixture> {
  const clock = createSimulatedClock();
  const mock = createMockApi({ clock, rateLimitPerMinute, settledThroughHeader, ...(maxPageSize === undefined ? {} : { maxPageSize }) });
  const pickup = new Date(clock.now() + 30 * DAY_MS).toISOString();
  for (let first = 1; first <= rows; first += perWrite) {
    const write: LoadInput[] = [];
    for (let n = first; n < first + perWrite && n <= rows; n += 1) write.push(benchLoad(n, pickup));
    mock.upsert(write);
    await clock.advance(1);
  }
  return {
    clock,
    mock,
    client: (fetch = (request) => mock.fetch(request)) => createClient({ baseUrl: mock.baseUrl, apiKey: MOCK_API_KEY, clock, fetch }),
  };
}

export const mb = (bytes: number) => bytes / 1024 / 1024;
