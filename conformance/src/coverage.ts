// Requirement coverage: SPEC.md's rules (§1–§8) and the checks that verify each, so that a reader of the
// summary sees what the run verified and what it did not. Policy as data: a rule names its checks by title.
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE, filtersOfKind, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import type { CheckEnd } from './completeness.js';

export interface Rule {
  section: string;
  rule: string;
  /** Titles of the checks that verify the rule; none when a client cannot observe it. */
  checks?: RegExp;
  /** Why no check covers it. */
  unobservable?: string;
}

/** The exact filters (LIST_LOADS_FILTERS) as a sentence's list: "a", "a and b", "a, b and c". */
const EXACT_FILTER_NAMES = filtersOfKind('exact')
  .map(({ name }) => name)
  .join(', ')
  .replace(/, ([^,]*)$/, ' and $1');

export const RULES: readonly Rule[] = [
  { section: '§1', rule: 'one read-only operation: a write is refused', checks: /read-only/ },
  { section: '§1', rule: "a key never returns another customer's loads", checks: /customers' keys see disjoint|returns none of the first customer's rows/ },
  { section: '§1', rule: 'the feed holds only pickups of the last 12 months; no parameter widens it', checks: /within the last 12 months|does not widen the 12-month window/ },
  {
    section: '§1',
    rule: 'updatedAt changes only when a value changes',
    unobservable: 'a read-only client cannot change a load; the server tests it',
  },
  { section: '§1', rule: 'the OpenAPI 3.1 contract is served at /api/v1/openapi.json', checks: /OpenAPI document is served/ },
  { section: '§2', rule: 'a load has the 23 fields, nullable ones present as null, nothing else (createdAt tolerated)', checks: /no load has a property|every nullable field is present|Load schema has SPEC's 23 fields/ },
  { section: '§2', rule: 'date-times carry milliseconds and Z', checks: /millisecond precision and a Z/ },
  { section: '§2', rule: 'the page envelope: data, page, pageSize, totalCount, hasMore, nothing else', checks: /exactly the page envelope|totalCount is the same|hasMore is true on every page|add up to the first page's totalCount/ },
  { section: '§2', rule: 'the error body: error, details on 400 only, nothing else', checks: /error bodies carry error/ },
  { section: '§3', rule: 'status is one of the closed list', checks: /exactly the page envelope and conforming loads/ },
  { section: '§4', rule: 'listLoads at GET /api/v1/loads with its query parameters', checks: /listLoads at GET/ },
  { section: '§4', rule: 'order: ascending (updatedAt, internal id), stable page boundaries', checks: /ascending updatedAt|same boundary|same order at every page size/ },
  { section: '§4', rule: `page and pageSize: defaults ${DEFAULT_PAGE} and ${DEFAULT_PAGE_SIZE}, minimum 1, integers, clamped and echoed`, checks: /without page and pageSize|clamps to it|\(page=0\)|\(pageSize=0\)|not an integer/ },
  { section: '§4', rule: 'a walk of the pages returns every row once; the page past the end is empty', checks: /no loadNumber twice|page after the last one/ },
  { section: '§4', rule: 'updatedSince: >= (inclusive), a date or a date-time, 400 when unparseable', checks: /updatedSince|a delta returns only/ },
  { section: '§4', rule: 'status: from the closed list, repeatable, OR-combined', checks: /a status filter returns|OR-combined|status outside the closed list/ },
  { section: '§4', rule: 'pickupFrom/To and deliveryFrom/To bound pickup and delivery dates', checks: /pickupFrom and pickupTo|deliveryFrom and deliveryTo|pickup range split/ },
  { section: '§4', rule: `${EXACT_FILTER_NAMES} match exactly`, checks: /matches exactly|strict prefix/ },
  { section: '§4', rule: 'filters combine with AND', checks: /combine with AND/ },
  { section: '§5', rule: 'a missing, malformed, unknown or revoked key gets 401, indistinguishably', checks: /gets 401|every 401 is the same/ },
  { section: '§5', rule: 'a valid Bearer key gets its loads', checks: /a valid key gets 200/ },
  { section: '§7', rule: 'invalid query parameters get 400 with details', checks: /gets 400 with details/ },
  { section: '§7', rule: 'past the rate limit: 429 with Retry-After, admitted again after it', checks: /going past the limit|after waiting Retry-After/ },
  { section: '§8', rule: 'X-RateLimit-Limit, -Remaining, -Reset on 200, 400 and 429', checks: /are integers on every 200 and 400|400 responses carry X-RateLimit|going past the limit/ },
  { section: '§8', rule: `a per-key limit per rolling minute: Limit at least 1 and constant, Remaining falls by one, Reset within ${RATE_WINDOW_SECONDS} s`, checks: /X-RateLimit-Limit is the same|X-RateLimit-Limit is at least 1|Remaining falls by one|Reset lies within/ },
];

export type Verdict = 'verified' | 'failed' | 'partly verified' | 'not verified' | 'not observable';

export interface CoverageRow {
  section: string;
  rule: string;
  checks: { passed: number; failed: number; skipped: number; total: number };
  verdict: Verdict;
  note?: string;
}

/** Only required checks count: a warning check never verifies a SPEC rule. */
export function coverage(checks: readonly CheckEnd[]): CoverageRow[] {
  return RULES.map(({ section, rule, checks: titles, unobservable }) => {
    const covering = titles ? checks.filter((check) => check.level === 'required' && titles.test(check.title)) : [];
    const count = (outcome: CheckEnd['outcome']) => covering.filter((check) => check.outcome === outcome).length;
    const tally = { passed: count('pass'), failed: count('fail'), skipped: count('skip'), total: covering.length };
    const verdict: Verdict = unobservable
      ? 'not observable'
      : tally.failed > 0
        ? 'failed'
        : tally.total > 0 && tally.passed === tally.total
          ? 'verified'
          : tally.passed > 0
            ? 'partly verified'
            : 'not verified';
    const note = unobservable ?? (tally.total === 0 ? 'no check of it ran in this run' : undefined);
    return { section, rule, checks: tally, verdict, ...(note ? { note } : {}) };
  });
}

export function coverageTable(rows: readonly CoverageRow[]): string[] {
  const width = Math.max(...rows.map((row) => row.rule.length));
  return rows.map((row) => {
    const tally = row.checks.total === 0 ? '-' : `${row.checks.passed}/${row.checks.total} passed${row.checks.failed ? `, ${row.checks.failed} failed` : ''}${row.checks.skipped ? `, ${row.checks.skipped} not run` : ''}`;
    return `  ${row.section}  ${row.rule.padEnd(width)}  ${row.verdict.padEnd(15)}  ${tally}${row.note ? ` (${row.note})` : ''}`;
  });
}
