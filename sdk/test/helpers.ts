// Shared test fixtures: loads, a client on the mock in simulated time, and a copy that upserts by loadNumber.
import { LOAD_STATUSES, type Load, type Violation } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { createClient, type ClientOptions, type LoadfeedClient, type LoadRow } from '../src/index.js';
import { MOCK_API_KEY, createMockApi, createSimulatedClock, type LoadInput, type MockApi, type MockApiOptions, type SimulatedClock } from '../src/mock/index.js';

const DAY_MS = 86_400_000;
/** A pickup a week from the real today: inside the 12-month window for the real server and the simulated one. */
const PICKUP = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + 7 * DAY_MS).toISOString();

export function loadInput(n: number, overrides: Partial<LoadInput> = {}): LoadInput {
  return {
    loadNumber: `L${String(n).padStart(6, '0')}`,
    status: LOAD_STATUSES[n % LOAD_STATUSES.length]!,
    poNumber: `PO-${n}`,
    originCity: 'Dallas',
    originState: 'TX',
    scheduledPickupDate: PICKUP,
    miles: String(100 + n),
    ...overrides,
  };
}

export const loadInputs = (count: number, from = 1) => Array.from({ length: count }, (_, index) => loadInput(from + index));

/** The customer's side: a table keyed by loadNumber. */
export function createCopy() {
  const rows = new Map<string, LoadRow>();
  return {
    rows,
    upsert(batch: LoadRow[]) {
      for (const row of batch) rows.set(row.loadNumber, row);
    },
    /** Rows that differ from the server's, by loadNumber: missing, stale or extra. */
    differences(server: readonly Load[]): string[] {
      const problems: string[] = [];
      const expected = new Map(server.map((load) => [load.loadNumber, load]));
      for (const [loadNumber, load] of expected) {
        const copy = rows.get(loadNumber);
        if (!copy) problems.push(`${loadNumber} missing`);
        else if (copy.updatedAt !== load.updatedAt) problems.push(`${loadNumber} stale (${copy.updatedAt} < ${load.updatedAt})`);
      }
      for (const loadNumber of rows.keys()) if (!expected.has(loadNumber)) problems.push(`${loadNumber} extra`);
      return problems;
    },
  };
}

export interface MockSetup {
  clock: SimulatedClock;
  mock: MockApi;
  client: LoadfeedClient;
  /** Every response the client received, with its contract violations. */
  violations: Violation[];
}

/** A mock API and a client on it, in simulated time; every response is checked against the contract. */
export function mockSetup(options: { mock?: MockApiOptions; client?: Partial<ClientOptions>; autoAdvance?: boolean } = {}): MockSetup {
  const clock = createSimulatedClock({ autoAdvance: options.autoAdvance ?? true });
  const mock = createMockApi({ clock, ...options.mock });
  const violations: Violation[] = [];
  const baseFetch = options.client?.fetch ?? ((request: Request) => mock.fetch(request));
  const client = createClient({
    baseUrl: mock.baseUrl,
    apiKey: MOCK_API_KEY,
    clock,
    random: () => 0.5,
    ...options.client,
    fetch: async (request) => {
      const response = await baseFetch(request);
      if (new URL(request.url).pathname.endsWith('/loads')) {
        const body: unknown = await response.clone().json();
        violations.push(...checkResponse({ status: response.status, headers: response.headers, body }));
      }
      return response;
    },
  });
  return { clock, mock, client, violations };
}
