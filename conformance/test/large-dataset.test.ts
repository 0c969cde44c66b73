import { startTestServer, type TestServer } from '@loadfeed/server/testing';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importInBatches, loadsOf } from './support/loads.js';
import { runKit } from './support/run-kit.js';

const database = useTestDatabase();
/** More rows than the largest page holds, so the sample is partial and the walk takes the newest slice. */
const ROWS = 230;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: database.url });
  await server.createCustomer('BIG');
  await importInBatches(server, 'BIG', loadsOf('BG', ROWS, 1.4), 10);
});
afterAll(async () => {
  await server?.stop();
});

it('checks a key that sees more rows than one page holds from a partial sample and a walk over the newest rows', async () => {
  const { key } = await server.createKey('BIG', { rateLimit: 600 });
  const run = await runKit({ baseUrl: server.baseUrl, keys: { primary: key }, grep: 'pagination/|filters/|delta/|window/' });
  expect(run.exitCode, run.stdout).toBe(0);
  const required = run.checks.filter((check) => check.level === 'required');
  expect(required.filter((check) => check.outcome !== 'pass').map((check) => `${check.outcome}: ${check.title}\n${check.message}`)).toEqual([]);
  expect(run.stdout).toMatch(/the key sees 230 rows/);
});
