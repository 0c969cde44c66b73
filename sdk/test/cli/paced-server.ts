// A customer whose loads were changed an hour apart, on a key with a tiny rate limit: a sync of it
// must wait for the quota after two requests, and a re-run from a saved cursor reads visibly fewer
// rows than a first run (the 5-minute overlap reaches back one load, not all of them).
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll } from 'vitest';
import { loadInputs } from '../helpers.js';
import { restamp } from '../restamp.js';

export const LOADS = 30;
/** Two requests a minute: the third one of a sync waits for the window. */
export const TINY_LIMIT = 2;

export interface PacedCustomer {
  code: string;
  /** A key with TINY_LIMIT requests a minute. */
  slowKey: string;
  /** Another key of the same customer that never waits. */
  fastKey: string;
}

export function usePacedServer() {
  const database = useTestDatabase();
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await server?.stop();
  });

  return {
    get baseUrl(): string {
      if (!server) throw new Error('the server runs only inside tests and hooks');
      return server.baseUrl;
    },
    async customer(): Promise<PacedCustomer> {
      if (!server) throw new Error('the server runs only inside tests and hooks');
      const code = `P${randomBytes(4).toString('hex')}`;
      await server.createCustomer(code);
      await server.importLoads(code, loadInputs(LOADS));
      await spreadUpdatedAt(database.url, code);
      const slow = await server.createKey(code, { rateLimit: TINY_LIMIT });
      const fast = await server.createKey(code, { rateLimit: 1_000_000 });
      return { code, slowKey: slow.key, fastKey: fast.key };
    },
  };
}

/**
 * Moves the customer's loads one hour apart, oldest first, in the past. The table's trigger stamps
 * every write with now(), so it is paused for this one statement, as an operator backfilling history would.
 */
async function spreadUpdatedAt(databaseUrl: string, customerCode: string): Promise<void> {
  await restamp(
    databaseUrl,
    `UPDATE loads AS l
          SET updated_at = date_trunc('milliseconds', now()) - ($2::int - ranked.position) * interval '1 hour'
         FROM (SELECT id, row_number() OVER (ORDER BY load_number) AS position
                 FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text)) AS ranked
        WHERE l.id = ranked.id`,
    [customerCode, LOADS + 1],
  );
}
