import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { DEFAULT_PAGE_SIZE } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, memoryCursorStore, syncLoads } from '../../src/index.js';
import { FAST_LIMIT } from './fixture.js';

// The seeded demo has a history (distinct updatedAt values over months, some ties), as a real feed does:
// the SDK's first sync costs what SPEC §4's loop costs, and a second with nothing changed one request.
describe('syncLoads on the seeded demo feed', () => {
  const database = useTestDatabase();
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: FAST_LIMIT });
    await server.createCustomer('demo');
    await server.seedLoads('demo', { count: 300 });
    key = (await server.createKey('demo')).key;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('takes no more than 1.05x the requests of SPEC\'s page loop on the first run, and at most 2 when nothing changed', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey: key });
    let specLoopRequests = 0;
    let rows = 0;
    for (let page = 1; ; page++) {
      const served = await client.listLoads({ page, pageSize: DEFAULT_PAGE_SIZE });
      specLoopRequests += 1;
      rows += served.data.length;
      if (!served.hasMore) break;
    }
    const stamps = new Set<string>();
    const cursorStore = memoryCursorStore();
    const sync = () => syncLoads({ client, cursorStore, pageSize: DEFAULT_PAGE_SIZE, upsert: (page) => page.forEach((row) => stamps.add(row.updatedAt)) });
    const first = await sync();
    expect(first.rows).toBeGreaterThanOrEqual(rows);
    expect(first.requests).toBeLessThanOrEqual(Math.floor(specLoopRequests * 1.05));
    expect(stamps.size).toBeGreaterThan(rows / 2);
    const second = await sync();
    expect(second.requests).toBeLessThanOrEqual(2);
  });
});
