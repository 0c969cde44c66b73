// The console a person reads at a glance: one line per check (pass, fail, skip with why, warning), then a
// summary: the result (passed, failed, or incomplete with what each unrun check lacked), the requirement
// coverage table and the requests the run spent. It writes the same summary into the JSON report's
// metadata, into budget.json beside it, and into the JUnit report's suite name, so that all agree. A run
// that is not passed is "failed" to every reporter after it (JUnit, JSON, Playwright's .last-run.json), and
// once they have written, the JUnit file gains an error that says why (./run-result-files.ts).
import { readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { spending } from './budget.js';
import { EXIT_CODE, isMissing, MISSING, MISSING_ANNOTATION, RESULT_LINE, runResult, unverified, type CheckEnd, type RunResult } from './completeness.js';
import { coverage, coverageTable } from './coverage.js';
import { ExchangeLog } from './evidence.js';
import { renderSummary, type SummaryCheck } from './html-summary.js';
import { exchangeLogPath, readOptions } from './options.js';
import { levelOf, outcomeOf, reasonOf, type Outcome } from './outcome.js';
import { recordResultInJunit, recordResultInLastRun } from './run-result-files.js';

const LABEL: Record<Outcome, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', warning: 'WARN' };

/** The group of a check: the folder of its spec file under tests/ (the check is declared in src/kit.ts). */
function groupOf(test: TestCase): string {
  for (let suite: Suite | undefined = test.parent; suite; suite = suite.parent) {
    if (suite.type === 'file') return basename(dirname(suite.title));
  }
  return '';
}

/** The lines of a failure a console shows: what broke, expected, actual, source, and the first replay command. */
function failureLines(message: string): string {
  const lines = message.replace(/^Error: /, '').split('\n');
  const pick = (label: string) => lines.find((line) => line.trimStart().startsWith(`${label}:`))?.trim();
  return [lines[0], pick('expected'), pick('actual'), pick('source'), pick('replay')].filter((line) => line !== undefined).join('\n        ');
}

/** Removes the empty folders under `folder` (Playwright makes one per check for output none of them writes), and it if empty. */
function removeEmptyFolders(folder: string): void {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) if (entry.isDirectory()) removeEmptyFolders(join(folder, entry.name));
  if (readdirSync(folder).length === 0) rmdirSync(folder);
}

export interface ConsoleReporterOptions {
  /** One line per check; off when Playwright's list reporter already prints them. */
  lines?: boolean;
}

export default class ConsoleReporter implements Reporter {
  private config: FullConfig | undefined;
  private readonly ended: CheckEnd[] = [];
  private readonly summaries: SummaryCheck[] = [];
  private readonly lines: boolean;
  /** Errors outside any check (global setup's above all), first line each. */
  private readonly errors: string[] = [];
  private decided: { result: RunResult; why: string } | undefined;

  constructor(options: ConsoleReporterOptions = {}) {
    this.lines = options.lines ?? true;
  }

  printsToStdio(): boolean {
    return this.lines;
  }

  /** What the checks write to stderr (./waiting.ts: the waits for the rate limit) is shown as it comes. */
  onStdErr(chunk: string | Buffer): void {
    if (this.lines) process.stderr.write(chunk);
  }

  onBegin(config: FullConfig): void {
    this.config = config;
  }

  onError(error: TestError): void {
    const message = (error.message ?? error.value ?? 'an error outside any check').replace(/^Error: /, '').split('\n')[0]!;
    this.errors.push(message);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...result.annotations];
    const outcome = outcomeOf(result.status, annotations);
    const level = levelOf(annotations);
    const missing = annotations.find((annotation) => annotation.type === MISSING_ANNOTATION)?.description;
    const reason = outcome === 'skip' ? reasonOf(annotations, 'skip') : undefined;
    this.ended.push({ title: `${groupOf(test)} › ${test.title}`, outcome, level, ...(isMissing(missing) ? { missing } : {}), ...(reason ? { reason } : {}) });
    const group = groupOf(test);
    const why =
      outcome === 'skip'
        ? `${reasonOf(annotations, 'skip')}${isMissing(missing) ? `\nneeds: ${MISSING[missing].remedy}` : ''}`
        : outcome === 'warning'
          ? reasonOf(annotations, 'warning')
          : outcome === 'fail'
            ? failureLines(result.error?.message ?? '')
            : undefined;
    const root = this.config?.configFile ? dirname(this.config.configFile) : process.cwd();
    this.summaries.push({
      title: `${group} › ${test.title}`,
      level,
      outcome,
      source: annotations.find((annotation) => annotation.type === 'source')?.description ?? '',
      location: `${relative(root, test.location.file)}:${test.location.line}`,
      ...(why ? { detail: why.replaceAll('\n        ', '\n') } : {}),
    });
    if (!this.lines) return;
    console.log(`${LABEL[outcome]}  ${group} › ${test.title}${why ? `\n        ${why.replaceAll('\nneeds: ', '\n        needs: ')}` : ''}`);
  }

  async onEnd(_result: FullResult): Promise<{ status: FullResult['status'] }> {
    const count = (outcome: Outcome, level?: 'required' | 'warning') =>
      this.ended.filter((ended) => ended.outcome === outcome && (level === undefined || ended.level === level)).length;
    let fatal: string | undefined;
    try {
      fatal = ExchangeLog.open(exchangeLogPath(readOptions().reportDir)).fatal;
    } catch {
      fatal = undefined;
    }
    // Why a run tested nothing: the ledger's reason (refused key, base URL), else the error that stopped it.
    const notTested = fatal ?? (this.ended.length === 0 ? (this.errors[0] ?? 'no check ran') : undefined);
    const result = runResult(this.ended, notTested);
    const rows = coverage(this.ended);
    const notRun = unverified(this.ended).map((check) => ({
      check: check.title,
      reason: check.reason ?? '',
      needs: MISSING[check.missing ?? 'rows'].remedy,
    }));
    let requests = '';
    try {
      const options = readOptions();
      const log = ExchangeLog.open(exchangeLogPath(options.reportDir));
      const spent = spending(log.exchanges);
      const summary = {
        result,
        exitCode: EXIT_CODE[result],
        notRun,
        coverage: rows,
        ...spent,
        plan: log.plan,
        ...(notTested ? { fatal: notTested } : {}),
      };
      // The JSON reporter, listed after this one, serializes the same config object when the run ends.
      if (this.config) this.config.metadata = { ...this.config.metadata, loadfeed: summary };
      writeFileSync(join(options.reportDir, 'budget.json'), `${JSON.stringify(summary, null, 2)}\n`);
      const byCredential = Object.entries(spent.byCredential)
        .map(([credential, n]) => `${credential} ${n}`)
        .join(', ');
      requests = `requests: ${spent.requests} (${byCredential}); unexpected 429s: ${spent.unexpected429}`;
      writeFileSync(join(options.reportDir, 'summary.html'), renderSummary({ result, checks: this.summaries, coverage: rows, requests, ...(notTested ? { why: notTested } : {}) }));
      if (this.config) for (const project of this.config.projects) removeEmptyFolders(project.outputDir);
    } catch (error) {
      requests = `requests: unknown (${(error as Error).message})`;
    }
    // Playwright's JUnit reporter, listed after this one, names its root suite from this variable when it writes.
    process.env.PLAYWRIGHT_JUNIT_SUITE_NAME = `loadfeed-conformance: ${result} (exit ${EXIT_CODE[result]}): ${RESULT_LINE[result]}`;
    console.log(
      [
        '',
        `loadfeed-conformance: ${this.ended.length} checks — ${count('pass')} passed, ${count('fail')} failed, ` +
          `${count('skip')} skipped, ${count('warning')} warnings`,
        `  required: ${count('pass', 'required')} passed, ${count('fail', 'required')} failed, ${count('skip', 'required')} skipped`,
        ...(notRun.length > 0
          ? [`  required checks that could not run (${notRun.length}):`, ...notRun.map((check) => `    ${check.check}\n      why: ${check.reason}\n      needs: ${check.needs}`)]
          : []),
        // A run that tested nothing has no coverage to show: every rule would read "not verified".
        ...(result === 'unusable' ? [] : ['  requirement coverage (SPEC.md rules; required checks only):', ...coverageTable(rows).map((line) => `  ${line}`)]),
        `  ${requests}`,
        // Errors outside any check (a crashed worker, a failing setup) are said even when checks ran.
        ...(this.errors.length > 0 && this.errors[0] !== notTested ? [`  errors outside the checks: ${this.errors.join('; ')}`] : []),
        `  result: ${RESULT_LINE[result]} (exit ${EXIT_CODE[result]})`,
        ...(notTested ? [`  why: ${notTested}`] : []),
      ].join('\n'),
    );
    const why = notTested ?? notRun.map((check) => `${check.check}: ${check.reason}; needs ${check.needs}`).join('\n');
    this.decided = { result, why };
    return { status: result === 'passed' ? 'passed' : 'failed' };
  }

  /** Every reporter has written by now: Playwright's own files learn the result (./run-result-files.ts). */
  async onExit(): Promise<void> {
    if (!this.decided || !this.config) return;
    for (const [name, options] of this.config.reporter) {
      const outputFile = (options as { outputFile?: string } | undefined)?.outputFile;
      if (name === 'junit' && outputFile) recordResultInJunit(outputFile, this.decided.result, this.decided.why);
    }
    const [project] = this.config.projects;
    if (project) recordResultInLastRun(join(project.outputDir, '.last-run.json'), this.decided.result);
  }
}
