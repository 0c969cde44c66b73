// The whole system, end to end, as its three users meet it: an operator seeds an empty database, issues
// keys and starts the server; a customer syncs with `loadfeed sync --sqlite`; a third party runs the
// conformance kit (with another customer's key and a revoked key) and it passes; and the customer's
// SQLite copy equals what the API serves that customer.
import { once } from 'node:events';
import { join } from 'node:path';
import { createClient, type LoadRow } from '@loadfeed/sdk';
import { useTestDatabase } from '@loadfeed/server/testing/vitest';
import { afterAll, expect, it } from 'vitest';
import { query } from './sqlite.js';
import { byLoadNumber, freePort, run, start, useScratchFolder } from './support.js';

const database = useTestDatabase();
const scratch = useScratchFolder();
let server: ReturnType<typeof start> | undefined;
afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
});

async function operator(args: string[]): Promise<string> {
  const result = await run('loadfeed-server', args, { env: { DATABASE_URL: database.url } });
  expect(result.code, `loadfeed-server ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

it('empty database → seed → keys → loadfeed sync into SQLite → the kit passes → the copy equals the API', async () => {
  // The operator.
  await operator(['migrate']);
  const seeded = JSON.parse(await operator(['seed', '--customers', '2', '--loads', '160', '--json'])) as { customers: { code: string; loads: number }[] };
  const [customer, other] = seeded.customers;
  const issue = async (code: string) => JSON.parse(await operator(['keys', 'create', code, '--rate-limit', '600', '--json'])) as { id: string; key: string };
  const primary = await issue(customer!.code);
  const second = await issue(other!.code);
  const revoked = await issue(customer!.code);
  await operator(['keys', 'revoke', revoked.id]);

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  server = start('loadfeed-server', ['start'], { env: { DATABASE_URL: database.url, PORT: String(port), LOG_LEVEL: 'warn' } });
  let log = '';
  server.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  for (let attempt = 0; ; attempt += 1) {
    const ready = await fetch(`${baseUrl}/readyz`).then((response) => response.ok, () => false);
    if (ready) break;
    expect(attempt, `the server did not get ready: ${log}`).toBeLessThan(120);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  // The customer.
  const copy = join(scratch.path, 'loads.db');
  const sync = await run('loadfeed', ['sync', '--sqlite', copy, '--page-size', '50'], { env: { LOADFEED_BASE_URL: baseUrl, LOADFEED_API_KEY: primary.key } });
  expect(sync.code, sync.stderr).toBe(0);

  // The third party.
  const kit = await run('bash', ['conformance-in-ci/run-conformance.sh'], {
    env: {
      LOADFEED_BASE_URL: baseUrl,
      LOADFEED_API_KEY: primary.key,
      LOADFEED_SECOND_KEY: second.key,
      LOADFEED_REVOKED_KEY: revoked.key,
      LOADFEED_REPORT_DIR: join(scratch.path, 'conformance-report'),
      LOADFEED_NO_EXHAUST: '1',
    },
  });
  expect(kit.code, kit.stdout + kit.stderr).toBe(0);
  expect(kit.stdout).toMatch(/required: \d+ passed, 0 failed/);

  // The copy equals what the API serves the customer, and holds nothing of the other customer's.
  const served: LoadRow[] = [];
  for await (const load of createClient({ baseUrl, apiKey: primary.key }).loads({ pageSize: 100 })) served.push(load);
  expect(served.length).toBeGreaterThan(0);
  expect(byLoadNumber(query(copy, 'SELECT * FROM loads WHERE "removedAt" IS NULL').map(({ removedAt: _marker, suspectedAt: _suspect, ...load }) => load) as unknown as LoadRow[])).toEqual(byLoadNumber(served));
  expect(query(copy, 'SELECT cursor FROM loadfeed_sync')[0]?.cursor).toBe(served.map((load) => load.updatedAt).sort().at(-1));

  server.kill('SIGTERM');
  const [code] = (await once(server, 'exit')) as [number | null];
  expect(code).toBe(0);
});
