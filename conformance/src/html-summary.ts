// summary.html: the run at a glance for a reader who does not know Playwright. Checks are grouped by the
// SPEC section they verify, each located at its spec file's line; warnings are counted as warnings and
// skips with what they lacked; a failure shows the same lines as the console, replay command included.
// Playwright's own report (html/) keeps every exchange attached.
import type { RunResult } from './completeness.js';
import { RESULT_LINE } from './completeness.js';
import { coverageTable, type CoverageRow } from './coverage.js';
import type { Outcome } from './outcome.js';

export interface SummaryCheck {
  title: string;
  level: 'required' | 'warning';
  outcome: Outcome;
  /** The source it names, like "SPEC §4, §7" or "DECISIONS: …; SPEC §5". */
  source: string;
  location: string;
  /** The failure, warning or skip reason, as the console shows it. */
  detail?: string;
}

const escape = (text: string) => text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);

const LABEL: Record<Outcome, string> = { pass: 'passed', fail: 'failed', skip: 'not run', warning: 'warning' };

/** The first SPEC section a check names: its group. */
function sectionOf(source: string): string {
  return /§\d+/.exec(source)?.[0] ?? 'other';
}

function counts(checks: readonly SummaryCheck[]): string {
  return (['pass', 'fail', 'warning', 'skip'] as const)
    .map((outcome) => [outcome, checks.filter((check) => check.outcome === outcome).length] as const)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${n} ${LABEL[outcome]}`)
    .join(', ');
}

export function renderSummary(input: { result: RunResult; checks: readonly SummaryCheck[]; coverage: readonly CoverageRow[]; requests: string; why?: string }): string {
  const sections = [...new Set(input.checks.map((check) => sectionOf(check.source)))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const body = sections.map((section) => {
    const checks = input.checks.filter((check) => sectionOf(check.source) === section);
    const rows = checks.map(
      (check) => `<tr class="${check.outcome}"><td>${LABEL[check.outcome]}</td><td>${check.level}</td><td>${escape(check.title)}<br><small>${escape(check.location)}</small>${
        check.detail ? `<pre>${escape(check.detail)}</pre>` : ''
      }</td></tr>`,
    );
    return `<h2>SPEC ${escape(section)} <small>(${counts(checks)})</small></h2>\n<table>${rows.join('\n')}</table>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loadfeed-conformance: ${input.result}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}td{vertical-align:top;padding:.3em .6em;border-bottom:1px solid #ddd}
pre{white-space:pre-wrap;margin:.4em 0}.fail td:first-child{color:#b00}.warning td:first-child{color:#a60}.skip td:first-child{color:#666}.pass td:first-child{color:#070}</style></head>
<body><h1>loadfeed-conformance: ${escape(RESULT_LINE[input.result])}</h1>
${input.why ? `<p class="why"><strong>Why:</strong> ${escape(input.why)}</p>\n` : ''}<p>${input.checks.length} checks: ${counts(input.checks)}. Required: ${counts(input.checks.filter((check) => check.level === 'required'))}. ${escape(input.requests)}</p>
<h2>Requirement coverage</h2><pre>${escape(coverageTable(input.coverage).join('\n'))}</pre>
${body.join('\n')}
</body></html>
`;
}
