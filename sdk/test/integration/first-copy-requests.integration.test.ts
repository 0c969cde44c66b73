// How many requests a first copy takes against the real reference server at its two page-size maxima
// (MAX_PAGE_SIZE 100, its default, and 1000, the contract's): with distinct updatedAt values at most
// ceil(N / (maximum - 1)) + 1, the key walk's one re-read row a page; with bulk-write ties at page
// boundaries within 1.05 times that (the server says how far its feed is settled, so the sync reads pages by
// number and checks them, README "Ties"). The sync sets no page size: it asks for the largest and adapts.
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import type { Load } from '@loadfeed/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, syncLoads } from '../../src/index.js';
import { createCopy, loadInputs } from '../helpers.js';
import { restamp } from '../restamp.js';
import { FAST_LIMIT } from './fixture.js';

const database = useTestDatabase();
const servers = new Map<number, TestServer>();
const MAXIMA = [100, 1000] as const;

beforeAll(async () => {
  for (const maxPageSize of MAXIMA) servers.set(maxPageSize, await startTestServer({ databaseUrl: database.url, rateLimitPerMinute: FAST_LIMIT, maxPageSize }));
});
afterAll(async () => {
  for (const server of servers.values()) await server.stop();
});

/**
 * Stamps the customer's loads `perStamp` rows to an updatedAt, a millisecond apart, in the past, as one
 * bulk write after another would. The table's trigger stamps every write with now(), so it is paused
 * for this one statement, as an operator backfilling history would.
 */
async function stamp(customerCode: string, perStamp: number): Promise<void> {
  await restamp(
    database.url,
    `UPDATE loads AS l
          SET updated_at = date_trunc('milliseconds', now()) - interval '1 day' + ((ranked.position - 1) / $2::int) * interval '1 millisecond'
         FROM (SELECT id, row_number() OVER (ORDER BY load_number) AS position
                 FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text)) AS ranked
        WHERE l.id = ranked.id`,
    [customerCode, perStamp],
  );
}

// 37 and 50 rows an instant put a tie across most page boundaries at 100 a page (the key walk alone took
// 1.34 and 1.98 times the bound there). 12,345 rows at 100 a page take two stretches, so a check.
const CASES = [
  { maxPageSize: 100, rows: 1_234, perStamp: 1, allowance: 1 },
  { maxPageSize: 100, rows: 1_234, perStamp: 5, allowance: 1.05 },
  { maxPageSize: 100, rows: 1_234, perStamp: 37, allowance: 1.05 },
  { maxPageSize: 100, rows: 1_234, perStamp: 50, allowance: 1.05 },
  { maxPageSize: 100, rows: 12_345, perStamp: 1, allowance: 1 },
  { maxPageSize: 100, rows: 12_345, perStamp: 37, allowance: 1.05 },
  { maxPageSize: 100, rows: 12_345, perStamp: 50, allowance: 1.05 },
  { maxPageSize: 1000, rows: 4_750, perStamp: 1, allowance: 1 },
  { maxPageSize: 1000, rows: 4_750, perStamp: 37, allowance: 1.05 },
  { maxPageSize: 1000, rows: 4_750, perStamp: 50, allowance: 1.05 },
] as const;

describe('the requests of a first copy, with no page size given', () => {
  it.each(CASES)(
    'deployment maximum $maxPageSize, $rows loads, $perStamp per updatedAt: at most $allowance x (ceil(N / (maximum - 1)) + 1)',
    async ({ maxPageSize, rows, perStamp, allowance }) => {
      const server = servers.get(maxPageSize)!;
      const code = `R${randomBytes(4).toString('hex')}`;
      await server.createCustomer(code);
      await server.importLoads(code, loadInputs(rows));
      await stamp(code, perStamp);
      const { key } = await server.createKey(code, { rateLimit: FAST_LIMIT });
      const client = createClient({ baseUrl: server.baseUrl, apiKey: key });
      const copy = createCopy();

      const summary = await syncLoads({ client, upsert: copy.upsert });

      const served: Load[] = [];
      for await (const load of client.loads({ pageSize: maxPageSize })) served.push(load);
      expect(served).toHaveLength(rows);
      expect(copy.differences(served)).toEqual([]);
      expect(summary.pageSize).toBe(maxPageSize);
      const bound = Math.ceil(rows / (maxPageSize - 1)) + 1;
      expect(summary.requests).toBeLessThanOrEqual(Math.floor(allowance * bound));
    },
  );
});
