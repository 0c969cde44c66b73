// `loadfeed`'s exit codes are its rows of @loadfeed/spec/cli's EXIT_CODE_TABLE: `--help` prints them, and the
// README's table is that table, so that a scheduler's author reads the codes the command gives.
import { readFile } from 'node:fs/promises';
import { EXIT_CODE_TABLE, EXIT_CODES as SHARED_EXIT_CODES, exitCodeHelp, exitCodeMarkdown } from '@loadfeed/spec/cli';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/command.js';
import { runCli } from './run-cli.js';

describe('the exit codes', () => {
  it('are distinct, keep the codes both command lines share, and the README shows their table', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const codes = EXIT_CODE_TABLE.loadfeed.map(({ code }) => code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(EXIT_CODES).toMatchObject(SHARED_EXIT_CODES);
    expect(EXIT_CODES).toMatchObject({ rateLimited: 3, copyDiffers: 4, interrupted: 130, terminated: 143 });
    expect(readme).toContain(`### Exit codes\n\n${exitCodeMarkdown('loadfeed')}\n\n`);
  });

  it.each([['sync'], ['verify'], []])('loadfeed %s --help prints every one of them', async (...command) => {
    const help = await runCli([...command, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`${exitCodeHelp('loadfeed')}\n`);
  });
});
