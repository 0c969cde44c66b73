// The settings' documentation is made from their declaration: the README's table is the generated one,
// and `start --help` lists every setting with its default and bounds.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationTable, settingsHelp, TABLE_MARKERS, withConfigurationTable } from '../../src/config/docs.js';
import { SETTINGS } from '../../src/config/settings.js';
import { runCli } from '../cli/run-cli.js';

const README = new URL('../../README.md', import.meta.url);

describe('the configuration documentation', () => {
  it("server/README.md's table is the one generated from the settings (npm run docs:config -w @loadfeed/server rewrites it)", () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain(`${TABLE_MARKERS.begin}\n${configurationTable()}\n${TABLE_MARKERS.end}`);
    expect(withConfigurationTable(readme)).toBe(readme);
  });

  it('the table and the help name every setting once, with its default', () => {
    const table = configurationTable();
    const help = settingsHelp();
    for (const setting of Object.values(SETTINGS)) {
      expect(table.split('\n').filter((row) => row.startsWith(`| \`${setting.env}\` |`))).toHaveLength(1);
      expect(help.split('\n').filter((line) => line.startsWith(`  ${setting.env} (default `))).toHaveLength(1);
    }
  });

  it('a table edited by hand is put back', () => {
    const readme = readFileSync(README, 'utf8');
    const edited = readme.replace('| `PORT` | `3000` |', '| `PORT` | `8080` |');
    expect(edited).not.toBe(readme);
    expect(withConfigurationTable(edited)).toBe(readme);
  });

  it('`loadfeed-server start --help` lists the settings as generated, a bad value of any of them stopping the start by its name', async () => {
    const { code, stdout } = await runCli(['start', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(settingsHelp());
    const bad = await runCli(['migrate'], { env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x', DB_REPLICA_RETRY_MS: 'soon' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('loadfeed-server: invalid configuration: DB_REPLICA_RETRY_MS must be a whole number from 10 to 600000 (got soon)\n');
  });
});
