// The reference server as a third party would run it: two customers with realistic data, a key of each,
// and a revoked key. The first customer's history is groups of six loads tied at one instant, a week apart.
import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { agedOutLoad, importInBatches, loadsOf } from './loads.js';
import { restamp, tiedGroups } from './stamps.js';

export const CUSTOMER = 'ACME';
export const OTHER_CUSTOMER = 'BETA';

export interface Keys {
  primary: string;
  second: string;
  revoked: string;
}

export async function startDeployment(databaseUrl: string): Promise<TestServer> {
  const server = await startTestServer({ databaseUrl });
  await server.createCustomer(CUSTOMER, 'Acme Freight Buyers');
  await server.createCustomer(OTHER_CUSTOMER, 'Beta Retail');
  const loads = loadsOf('AC', 36);
  await importInBatches(server, CUSTOMER, [agedOutLoad('AC'), ...loads], 6);
  await restamp(databaseUrl, CUSTOMER, tiedGroups(loads.map((load) => load.loadNumber), 6));
  await importInBatches(server, OTHER_CUSTOMER, loadsOf('BT', 10), 4);
  return server;
}

/** Fresh keys, so that one kit run's requests never count against another's window. */
export async function issueKeys(server: TestServer, rateLimit: number): Promise<Keys> {
  const primary = await server.createKey(CUSTOMER, { rateLimit });
  const second = await server.createKey(OTHER_CUSTOMER, { rateLimit });
  const revoked = await server.createKey(CUSTOMER, { rateLimit });
  await server.revokeKey(revoked.id);
  return { primary: primary.key, second: second.key, revoked: revoked.key };
}
