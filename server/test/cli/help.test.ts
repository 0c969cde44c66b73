import { readFile } from 'node:fs/promises';
import { exitCodeHelp, exitCodeMarkdown } from '@loadfeed/spec/cli';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const COMMANDS = ['start', 'migrate', 'customers add', 'customers list', 'keys create', 'keys revoke', 'keys list', 'import', 'seed'];

describe('loadfeed-server --help', () => {
  it('lists every command and exits 0', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const name of ['start', 'migrate', 'customers', 'keys', 'import', 'seed']) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(stdout).toContain('DATABASE_URL');
  });

  it('lists the exit codes, as @loadfeed/spec/cli\'s table gives them and the README shows them', async () => {
    const { stdout } = await runCli(['--help']);
    expect(stdout).toContain(`${exitCodeHelp('loadfeed-server')}\n`);
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\n${exitCodeMarkdown('loadfeed-server')}\n\n`);
  });

  it.each(COMMANDS)('explains `%s` with its usage and the database option', async (command) => {
    const { code, stdout, stderr } = await runCli([...command.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain(`Usage: loadfeed-server ${command}`);
    expect(stdout).toContain('--database-url');
  });

  it('explains a command group with its subcommands', async () => {
    const { code, stdout } = await runCli(['keys', '--help']);
    expect(code).toBe(0);
    for (const name of ['create', 'revoke', 'list']) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });
});

describe('a command line that does not parse', () => {
  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['keys', 'mint'], /unknown subcommand "mint"/],
    [['keys', 'create'], /missing <customerCode>/],
    [['keys', 'create', 'acme', '--rate-limit', 'many'], /--rate-limit must be a whole number/],
    [['customers', 'add', 'acme', '--colour', 'red'], /unknown option --colour/],
    [['import', 'acme'], /missing <file>/],
    [['seed', '--customers', '2'], /--customers and --loads are required/],
    [['seed', '--customers', '0', '--loads', '5'], /--customers must be a whole number of at least 1/],
    [['migrate', 'now'], /unexpected argument "now"/],
  ])('%j exits 2 with one line that points at --help', async (args, reason) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(reason);
    expect(stderr).toMatch(/--help/);
  });
});

describe('a command without a usable database', () => {
  it('exits 1 with one line asking for DATABASE_URL when none is given', async () => {
    const { code, stderr } = await runCli(['customers', 'list']);
    expect(code).toBe(1);
    expect(stderr).toBe('loadfeed-server: no database given: set DATABASE_URL or pass --database-url postgres://…\n');
  });

  it('exits 1 with one line, no stack trace, when the database cannot be reached', async () => {
    const { code, stderr } = await runCli(['keys', 'list', '--database-url', 'postgres://nobody@127.0.0.1:1/nowhere']);
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^loadfeed-server: cannot reach the database \(connection refused\)/)]);
  });

  it('exits 1 naming the setting when DATABASE_URL is not a PostgreSQL URL', async () => {
    const { code, stderr } = await runCli(['migrate'], { env: { DATABASE_URL: 'mysql://localhost/x' } });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^loadfeed-server: invalid configuration: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ connection string\n$/);
  });
});
