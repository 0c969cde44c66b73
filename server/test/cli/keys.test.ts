import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/testing/server.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { cliOk, query, runCli } from './run-cli.js';

const KEY = /lf_live_[0-9A-Za-z]{38}/g;

describe('loadfeed-server keys', () => {
  const database = useTestDatabase();
  let server: TestServer;
  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    server = await startTestServer({ databaseUrl: database.url });
    await cliOk(['customers', 'add', 'acme', '--name', 'Acme Freight'], { env: env() });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const feed = (key: string) => fetch(`${server.baseUrl}/api/v1/loads?pageSize=1`, { headers: { authorization: `Bearer ${key}` } });

  it('create prints a working key once, and --json prints id, key, customer and rate limit on one line', async () => {
    const text = await cliOk(['keys', 'create', 'acme'], { env: env() });
    const [key] = text.match(KEY) ?? [];
    expect(key).toBeDefined();
    expect((await feed(key!)).status).toBe(200);

    const json = await cliOk(['keys', 'create', 'acme', '--rate-limit', '25', '--json'], { env: env() });
    expect(json.trimEnd().split('\n')).toHaveLength(1);
    const issued = JSON.parse(json) as Record<string, unknown>;
    expect(Object.keys(issued)).toEqual(['id', 'key', 'customer', 'rateLimit']);
    expect(issued).toMatchObject({ customer: 'acme', rateLimit: 25, key: expect.stringMatching(/^lf_live_/) });
    const response = await feed(issued.key as string);
    expect(response.headers.get('x-ratelimit-limit')).toBe('25');
  });

  it.each([
    [['keys', 'create', 'nobody', '--json'], 1, /^no customer has the code "nobody"/],
    [['keys', 'create', 'acme', '--rate-limit', 'many', '--json'], 2, /rate-limit/],
    [['keys', 'list', '--json'], 1, /^no database given/],
  ])('%j prints its failure as one line of JSON on stdout, and the reason on stderr', async (args, exitCode, reason) => {
    const { code, stdout, stderr } = await runCli(args, { env: args.includes('list') ? {} : env() });
    expect(code).toBe(exitCode);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const failure = JSON.parse(stdout) as { error: string; exitCode: number };
    expect(failure).toEqual({ error: expect.stringMatching(reason), exitCode });
    expect(stderr).toBe(`loadfeed-server: ${failure.error}\n`);
  });

  it('stores only a hash of the key, never the key itself', async () => {
    const { key } = JSON.parse(await cliOk(['keys', 'create', 'acme', '--json'], { env: env() })) as { key: string };
    const rows = await query<{ row: string }>(database.url, 'SELECT row_to_json(k)::text AS row FROM api_keys AS k');
    for (const { row } of rows) expect(row).not.toContain(key.slice(8));
  });

  it('list shows ids, hints, customer, created, last used and revoked, and never a key', async () => {
    const created = JSON.parse(await cliOk(['keys', 'create', 'acme', '--json'], { env: env() })) as { id: string; key: string };
    await feed(created.key);
    const table = await cliOk(['keys', 'list'], { env: env() });
    expect(table).toMatch(/^ID\s+CUSTOMER\s+HINT\s+RATE LIMIT\s+CREATED\s+LAST USED\s+REVOKED$/m);
    expect(table).toContain(created.id);
    expect(table).toContain(`lf_live_…${created.key.slice(-4)}`);
    expect(table.match(KEY)).toBeNull();
    // Recorded at most once a minute, so shown to the minute, as the help and server/README say.
    const row = table.split('\n').find((line) => line.includes(created.id))!;
    expect(row).toMatch(/ \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z +\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z +-?$/);

    const listed = JSON.parse(await cliOk(['keys', 'list', 'acme', '--json'], { env: env() })) as Record<string, unknown>[];
    const mine = listed.find((key) => key.id === created.id);
    expect(mine).toMatchObject({ customer: 'acme', hint: `lf_live_…${created.key.slice(-4)}`, revokedAt: null, lastUsedAt: expect.any(String) });
    expect(JSON.stringify(listed).match(KEY)).toBeNull();
  });

  it('revoke makes the server answer the key with a 401 at once', async () => {
    const { id, key } = JSON.parse(await cliOk(['keys', 'create', 'acme', '--json'], { env: env() })) as { id: string; key: string };
    expect((await feed(key)).status).toBe(200);
    expect(await cliOk(['keys', 'revoke', id], { env: env() })).toContain(`revoked key ${id}`);
    expect((await feed(key)).status).toBe(401);
    const listed = JSON.parse(await cliOk(['keys', 'list', '--json'], { env: env() })) as { id: string; revokedAt: string | null }[];
    expect(listed.find((entry) => entry.id === id)?.revokedAt).toEqual(expect.any(String));
  });

  it.each([
    [['keys', 'create', 'nobody'], /^loadfeed-server: no customer has the code "nobody"/],
    [['keys', 'revoke', 'not-an-id'], /^loadfeed-server: "not-an-id" is not a key id/],
    [['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], /^loadfeed-server: no key has the id/],
    [['keys', 'list', 'nobody'], /^loadfeed-server: no customer has the code "nobody"/],
  ])('%j exits 1 with a one-line reason', async (args, reason) => {
    const { code, stderr } = await runCli(args, { env: env() });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(reason);
  });
});
