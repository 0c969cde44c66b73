// Playwright's own files about a run, brought into line with the kit's result once they are written
// (the console reporter's onExit). Playwright counts checks: a run that tested nothing (a refused key, a
// wrong base URL) has no failed check, and one whose required checks could not run has only skips, so its
// JUnit file would show a CI a pass. The JUnit file gains one test case that is an error saying why, and
// test-results/.last-run.json carries the result beside Playwright's status.
import { readFileSync, writeFileSync } from 'node:fs';
import { EXIT_CODE, RESULT_LINE, type RunResult } from './completeness.js';

const xml = (text: string) => text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!);

/** Adds an erroring test case "the run's result" to a JUnit file, for a result that is neither passed nor failed by a check. */
export function recordResultInJunit(path: string, result: RunResult, why: string): void {
  if (result === 'passed' || result === 'failed') return;
  let report: string;
  try {
    report = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  const message = `${RESULT_LINE[result]} (exit ${EXIT_CODE[result]})`;
  const suite = [
    `<testsuite name="loadfeed-conformance" timestamp="${new Date().toISOString()}" hostname="loadfeed-conformance" tests="1" failures="0" skipped="0" time="0" errors="1">`,
    `<testcase name="the run's result: ${xml(result)}" classname="loadfeed-conformance" time="0">`,
    `<error message="${xml(message)}" type="${xml(result)}">`,
    xml(`${message}\n${why}`),
    '</error>',
    '</testcase>',
    '</testsuite>',
  ].join('\n');
  const bumped = report.replace(/<testsuites\b[^>]*>/, (root) =>
    root.replace(/\b(tests|errors)="(\d+)"/g, (_attribute, name: string, value: string) => `${name}="${Number(value) + 1}"`),
  );
  writeFileSync(path, bumped.replace(/<\/testsuites>\s*$/, `${suite}\n</testsuites>\n`));
}

/** Adds the kit's result and exit code to Playwright's .last-run.json (whose status the reporter has already made "failed"). */
export function recordResultInLastRun(path: string, result: RunResult): void {
  let lastRun: Record<string, unknown>;
  try {
    lastRun = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return;
  }
  writeFileSync(path, `${JSON.stringify({ ...lastRun, loadfeed: { result, exitCode: EXIT_CODE[result] } }, null, 2)}\n`);
}
