// The console a person reads at a glance: one line per check (pass, fail, skip with why, warning), then a
// summary with the requests the run spent. It also writes the spending into the JSON report's metadata and
// into budget.json beside it.
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { spending } from './budget.js';
import { ExchangeLog } from './evidence.js';
import { exchangeLogPath, readOptions } from './options.js';
import { levelOf, outcomeOf, reasonOf, type Outcome } from './outcome.js';

const LABEL: Record<Outcome, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', warning: 'WARN' };

/** The group of a check: the folder of its spec file under tests/ (the check is declared in src/kit.ts). */
function groupOf(test: TestCase): string {
  for (let suite: Suite | undefined = test.parent; suite; suite = suite.parent) {
    if (suite.type === 'file') return basename(dirname(suite.title));
  }
  return '';
}

export interface ConsoleReporterOptions {
  /** One line per check; off when Playwright's list reporter already prints them. */
  lines?: boolean;
}

export default class ConsoleReporter implements Reporter {
  private config: FullConfig | undefined;
  private readonly ended: { outcome: Outcome; level: 'required' | 'warning' }[] = [];
  private readonly lines: boolean;

  constructor(options: ConsoleReporterOptions = {}) {
    this.lines = options.lines ?? true;
  }

  printsToStdio(): boolean {
    return this.lines;
  }

  onBegin(config: FullConfig): void {
    this.config = config;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...result.annotations];
    const outcome = outcomeOf(result.status, annotations);
    const level = levelOf(annotations);
    this.ended.push({ outcome, level });
    if (!this.lines) return;
    const group = groupOf(test);
    const why =
      outcome === 'skip'
        ? reasonOf(annotations, 'skip')
        : outcome === 'warning'
          ? reasonOf(annotations, 'warning')
          : outcome === 'fail'
            ? result.error?.message?.split('\n')[0]?.replace(/^Error: /, '')
            : undefined;
    console.log(`${LABEL[outcome]}  ${group} › ${test.title}${why ? `\n        ${why}` : ''}`);
  }

  onEnd(result: FullResult): void {
    const count = (outcome: Outcome, level?: 'required' | 'warning') =>
      this.ended.filter((ended) => ended.outcome === outcome && (level === undefined || ended.level === level)).length;
    let requests = '';
    try {
      const options = readOptions();
      const log = ExchangeLog.open(exchangeLogPath(options.reportDir));
      const spent = spending(log.exchanges);
      const summary = { ...spent, plan: log.plan, ...(log.fatal ? { fatal: log.fatal } : {}) };
      // The JSON reporter, listed after this one, serializes the same config object when the run ends.
      if (this.config) this.config.metadata = { ...this.config.metadata, loadfeed: summary };
      writeFileSync(join(options.reportDir, 'budget.json'), `${JSON.stringify(summary, null, 2)}\n`);
      const byCredential = Object.entries(spent.byCredential)
        .map(([credential, n]) => `${credential} ${n}`)
        .join(', ');
      requests = `requests: ${spent.requests} (${byCredential}); unexpected 429s: ${spent.unexpected429}`;
    } catch (error) {
      requests = `requests: unknown (${(error as Error).message})`;
    }
    console.log(
      [
        '',
        `loadfeed-conformance: ${this.ended.length} checks — ${count('pass')} passed, ${count('fail')} failed, ` +
          `${count('skip')} skipped, ${count('warning')} warnings`,
        `  required: ${count('pass', 'required')} passed, ${count('fail', 'required')} failed, ${count('skip', 'required')} skipped`,
        `  ${requests}`,
        `  result: ${result.status === 'passed' ? 'every required check passed' : result.status}`,
      ].join('\n'),
    );
  }
}
