// The three commands' exit codes are one table (src/exit-codes.ts). spec/README.md shows it whole; each
// command's own test holds its --help and README to its rows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_DIFFERENCES, EXIT_CODE_TABLE, EXIT_CODES, exitCodeHelp, exitCodeMarkdown, exitCodeOverviewMarkdown, exitCodesOf, type Program } from '../src/cli.js';

const programs = Object.keys(EXIT_CODE_TABLE) as Program[];

describe('the exit-code table', () => {
  it.each(programs)('gives %s distinct codes and distinct names', (program) => {
    const rows = EXIT_CODE_TABLE[program];
    expect(new Set(rows.map(({ code }) => code)).size).toBe(rows.length);
    expect(new Set(rows.map(({ name }) => name)).size).toBe(rows.length);
    expect(Object.keys(exitCodesOf(program))).toEqual(rows.map(({ name }) => name));
  });

  it('keeps 0, 1 and 2 under the same names in both command lines, the codes their shared errors carry', () => {
    expect(EXIT_CODES).toEqual({ ok: 0, failure: 1, usage: 2 });
    expect(exitCodesOf('loadfeed')).toMatchObject(EXIT_CODES);
  });

  it('explains every difference it notes for a code that more than one command gives', () => {
    for (const code of Object.keys(EXIT_CODE_DIFFERENCES).map(Number)) {
      expect(programs.filter((program) => EXIT_CODE_TABLE[program].some((row) => row.code === code)).length).toBeGreaterThan(1);
    }
  });

  it('renders each program\'s rows for --help and for a README, one line per code', () => {
    expect(exitCodeHelp('loadfeed-server').split('\n')).toEqual(['Exit codes:', '  0    done', '  1    failed: one line on stderr says why, no stack trace', '  2    bad usage: the command line does not parse']);
    expect(exitCodeMarkdown('loadfeed').split('\n')).toHaveLength(2 + EXIT_CODE_TABLE.loadfeed.length);
  });

  it('is what spec/README.md shows, every command side by side', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\n${exitCodeOverviewMarkdown()}\n\n`);
  });
});
