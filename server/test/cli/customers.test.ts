import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { cliOk, runCli } from './run-cli.js';

describe('loadfeed-server customers', () => {
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.url });
  const direct = useTestDatabase();

  it('works against a database that migrate has just set up', async () => {
    expect(await cliOk(['migrate'], { env: env() })).toMatch(/^applied \d+ migration/);
    expect(await cliOk(['migrate'], { env: env() })).toBe('the database is up to date\n');
  });

  it('migrate goes to DATABASE_DIRECT_URL when it is set, not to DATABASE_URL (a transaction-mode pooler)', async () => {
    const env = { DATABASE_URL: 'postgres://loadfeed@127.0.0.1:1/behind-a-pooler', DATABASE_DIRECT_URL: direct.url };
    expect(await cliOk(['migrate'], { env })).toMatch(/^applied \d+ migration/);
    expect(await cliOk(['migrate'], { env: { DATABASE_URL: direct.url } })).toBe('the database is up to date\n');
  });

  it('add then list shows the customer with its name, and the name defaults to the code', async () => {
    expect(await cliOk(['customers', 'add', 'acme', '--name', 'Acme Freight Inc.'], { env: env() })).toBe('added customer acme (Acme Freight Inc.)\n');
    await cliOk(['customers', 'add', 'globex'], { env: env() });
    const table = await cliOk(['customers', 'list'], { env: env() });
    expect(table).toMatch(/^CODE\s+NAME\s+ADDED$/m);
    expect(table).toMatch(/^acme\s+Acme Freight Inc\.\s+\d{4}-/m);
    const listed = JSON.parse(await cliOk(['customers', 'list', '--json'], { env: env() })) as { code: string; name: string }[];
    expect(listed.map(({ code, name }) => ({ code, name }))).toEqual([
      { code: 'acme', name: 'Acme Freight Inc.' },
      { code: 'globex', name: 'globex' },
    ]);
  });

  it.each([
    [['customers', 'add', 'acme'], /^loadfeed-server: customer "acme" exists already\n$/],
    [['customers', 'add', '-bad code-'], /^loadfeed-server: customer code "-bad code-" must be 1-64 letters/],
  ])('%j exits 1 with a one-line reason', async (args, reason) => {
    const { code, stderr } = await runCli([...args.slice(0, 2), '--', ...args.slice(2)], { env: env() });
    expect(code).toBe(1);
    expect(stderr).toMatch(reason);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
