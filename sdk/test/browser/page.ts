// The page the browser test opens: the mock behind msw's service worker, answering the SDK's client and a
// plain fetch from the page, as a front-end test would use it. What it saw goes to `window.outcome`.
import { setupWorker } from 'msw/browser';
import { createClient } from '@loadfeed/sdk';
import { createMockApi, MOCK_API_KEY } from '@loadfeed/sdk/mock';

// The two browser globals this page reads, typed here: the SDK's tests compile without the DOM library.
declare const location: { origin: string };
declare const window: { outcome?: Promise<unknown> };

const mock = createMockApi({
  baseUrl: location.origin,
  loads: [
    { loadNumber: 'L-1', status: 'Available', scheduledPickupDate: new Date().toISOString() },
    { loadNumber: 'L-2', status: 'Delivered', scheduledPickupDate: new Date().toISOString() },
    { loadNumber: 'L-3', status: 'Available', scheduledPickupDate: new Date().toISOString() },
  ],
});

async function run() {
  await setupWorker(...mock.handlers).start({ quiet: true, onUnhandledRequest: 'bypass' });
  const client = createClient({ baseUrl: location.origin, apiKey: MOCK_API_KEY });
  const page = await client.listLoads({ status: ['Available'], pageSize: 1 });
  const unauthorized = await fetch('/api/v1/loads');
  const invalid = await fetch('/api/v1/loads?updatedSince=2026-02-30T10:00:00Z', { headers: { Authorization: `Bearer ${MOCK_API_KEY}` } });
  return {
    loadNumbers: page.data.map((load) => load.loadNumber),
    totalCount: page.totalCount,
    hasMore: page.hasMore,
    unauthorized: { status: unauthorized.status, body: await unauthorized.json() },
    invalid: { status: invalid.status, body: await invalid.json(), remaining: invalid.headers.get('X-RateLimit-Remaining') },
  };
}

window.outcome = run();
