// The exit codes of the project's three commands, as data in one table: the conformance kit's
// `loadfeed-conformance`, the operator's `loadfeed-server` and the customer's `loadfeed`. Each command's
// constants, its `--help` and its README's table come from here, and spec/README.md shows all three side
// by side, so that a code that means one thing to the kit and another to a command line (2 and 3 do) is
// seen to. A scheduler's author reads what a code means for the command they run.
import { constants } from 'node:os';

export type Program = 'loadfeed-conformance' | 'loadfeed-server' | 'loadfeed';

export interface ExitCode {
  readonly code: number;
  /** The name code uses for it: a key of the command's constants. */
  readonly name: string;
  readonly meaning: string;
}

/** Every program's exit codes, in order; 0, 1 and 2 keep the names `ok`, `failure` and `usage` in both command lines. */
export const EXIT_CODE_TABLE = {
  'loadfeed-conformance': [
    { code: 0, name: 'passed', meaning: 'passed: every required check ran and passed' },
    { code: 1, name: 'failed', meaning: 'failed: a required check failed' },
    {
      code: 2,
      name: 'unusable',
      meaning: 'not tested: bad usage, an unreachable deployment, a wrong base URL, a refused key, or an error before any check ran',
    },
    { code: 3, name: 'incomplete', meaning: 'incomplete: nothing failed, but required checks could not run (the summary says why)' },
  ],
  'loadfeed-server': [
    { code: 0, name: 'ok', meaning: 'done' },
    { code: 1, name: 'failure', meaning: 'failed: one line on stderr says why, no stack trace' },
    { code: 2, name: 'usage', meaning: 'bad usage: the command line does not parse' },
  ],
  loadfeed: [
    { code: 0, name: 'ok', meaning: 'done: the sync reached the end of the feed; verify: the copy is complete' },
    {
      code: 1,
      name: 'failure',
      meaning: 'failed: the key was refused, the server or the copy failed, the API was unreachable, a response was off the contract (one line says why)',
    },
    { code: 2, name: 'usage', meaning: 'bad usage: an unknown or missing flag' },
    { code: 3, name: 'rateLimited', meaning: 'stopped by the rate limit with the checkpoint saved: run again later, it resumes from there' },
    { code: 4, name: 'copyDiffers', meaning: 'verify: rows are missing from the copy, differ, or are in it unexplained' },
    // 128 + the signal's number, what shells report for a process a signal stopped.
    { code: 128 + constants.signals.SIGINT, name: 'interrupted', meaning: 'stopped by Ctrl-C, cleanly, with the checkpoint saved' },
    { code: 128 + constants.signals.SIGTERM, name: 'terminated', meaning: 'stopped by SIGTERM (a scheduler), the same clean way' },
  ],
} as const satisfies Record<Program, readonly ExitCode[]>;

/** Where one code means different things in different programs, what differs (0 and 1 are success and failure in all three). */
export const EXIT_CODE_DIFFERENCES: Readonly<Record<number, string>> = {
  2: "the kit's takes in every reason it could not test the deployment, bad usage among them; the command lines' is bad usage only",
  3: "the kit's: the run is incomplete, not passed; loadfeed's: the rate limit stopped it, run it again later",
};

/** Who runs each program, for the side-by-side table's header. */
const USERS: Record<Program, string> = {
  'loadfeed-conformance': 'the kit',
  'loadfeed-server': 'the operator',
  loadfeed: 'the customer',
};

type Row<P extends Program> = (typeof EXIT_CODE_TABLE)[P][number];

/** A program's exit codes by name, e.g. `exitCodesOf('loadfeed').rateLimited` is 3. */
export type ExitCodes<P extends Program> = { readonly [R in Row<P> as R['name']]: R['code'] };

export function exitCodesOf<P extends Program>(program: P): ExitCodes<P> {
  const rows: readonly ExitCode[] = EXIT_CODE_TABLE[program];
  return Object.freeze(Object.fromEntries(rows.map(({ name, code }) => [name, code]))) as ExitCodes<P>;
}

/** The exit codes' part of a program's `--help`. */
export function exitCodeHelp(program: Program, heading = 'Exit codes:'): string {
  const rows: readonly ExitCode[] = EXIT_CODE_TABLE[program];
  return [heading, ...rows.map(({ code, meaning }) => `  ${String(code).padEnd(5)}${meaning}`)].join('\n');
}

/** A program's exit codes as the Markdown table its README shows (a test holds each README to it). */
export function exitCodeMarkdown(program: Program): string {
  const rows: readonly ExitCode[] = EXIT_CODE_TABLE[program];
  return ['| Code | Meaning |', '|---|---|', ...rows.map(({ code, meaning }) => `| ${code} | ${meaning} |`)].join('\n');
}

/** All three programs' codes side by side, one row per code, with what differs, as spec/README.md shows them; "-": not used. */
export function exitCodeOverviewMarkdown(): string {
  const programs = Object.keys(EXIT_CODE_TABLE) as Program[];
  const rowsOf = (program: Program): readonly ExitCode[] => EXIT_CODE_TABLE[program];
  const codes = [...new Set(programs.flatMap((program) => rowsOf(program).map(({ code }) => code)))].sort((a, b) => a - b);
  const cells = (code: number) => programs.map((program) => rowsOf(program).find((row) => row.code === code)?.meaning ?? '-');
  return [
    `| Code | ${programs.map((program) => `\`${program}\` (${USERS[program]})`).join(' | ')} | Not the same in every command |`,
    `|---|${programs.map(() => '---|').join('')}---|`,
    ...codes.map((code) => `| ${code} | ${cells(code).join(' | ')} | ${EXIT_CODE_DIFFERENCES[code] ?? ''} |`),
  ].join('\n');
}
