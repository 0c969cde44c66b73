// The exit codes are one list (EXIT_CODE_TABLE): `--help` prints it, and the README's table says the same,
// so that a scheduler's author reads the codes the command gives.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_TABLE, EXIT_CODES } from '../../src/cli/command.js';
import { runCli } from './run-cli.js';

describe('the exit codes', () => {
  it('are distinct, and the README lists each with the meaning --help gives', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(new Set(EXIT_CODE_TABLE.map(({ code }) => code)).size).toBe(EXIT_CODE_TABLE.length);
    expect(EXIT_CODE_TABLE.map(({ code }) => code).sort((a, b) => a - b)).toEqual(Object.values(EXIT_CODES).sort((a, b) => a - b));
    for (const { code, meaning } of EXIT_CODE_TABLE) expect(readme).toContain(`| ${code} | ${meaning} |`);
  });

  it.each([['sync'], ['verify'], []])('loadfeed %s --help prints every one of them', async (...command) => {
    const help = await runCli([...command, '--help']);
    expect(help.code).toBe(0);
    for (const { code, meaning } of EXIT_CODE_TABLE) expect(help.stdout).toContain(`  ${String(code).padEnd(5)}${meaning}\n`);
  });
});
