// Whether a run checked what SPEC.md requires. A required check that could not run leaves the run
// incomplete, never passed: the summary says what it lacked and what would let it run. Policy as data.
import { exitCodesOf } from '@loadfeed/spec/cli';
import type { Outcome } from './outcome.js';

/** What a skipped check lacked; `need` in src/kit.ts records it on the check. */
export type Missing = 'rows' | 'second-key' | 'revoked-key' | 'budget' | 'deployment' | 'opted-out' | 'optional';

export const MISSING: Record<Missing, { remedy: string; leavesRunIncomplete: boolean }> = {
  rows: { remedy: 'a key that sees more rows, or rows with more varied values', leavesRunIncomplete: true },
  'second-key': { remedy: "a key of another customer (--second-key or LOADFEED_SECOND_KEY)", leavesRunIncomplete: true },
  'revoked-key': { remedy: 'a revoked key of the customer (--revoked-key or LOADFEED_REVOKED_KEY)', leavesRunIncomplete: true },
  budget: { remedy: 'a larger request budget: a key with a higher rate limit', leavesRunIncomplete: true },
  deployment: { remedy: 'answers the check can read: see the checks that failed or warned', leavesRunIncomplete: true },
  // The caller chose to leave the check out (--no-exhaust): the coverage table still shows it unverified.
  'opted-out': { remedy: 'a run without --no-exhaust', leavesRunIncomplete: false },
  // What the contract leaves optional (a header a deployment may send) has nothing to check when absent.
  optional: { remedy: 'nothing: what it checks is optional', leavesRunIncomplete: false },
};

export const MISSING_ANNOTATION = 'missing';

/** `unusable`: the run could not test the deployment at all (refused key, wrong base URL, an error before any check). */
export type RunResult = 'passed' | 'failed' | 'incomplete' | 'unusable';

/** The bin's exit codes, the same in every report: the kit's rows of @loadfeed/spec/cli's EXIT_CODE_TABLE, which --help and README.md list. */
export const EXIT_CODE: Record<RunResult, number> = exitCodesOf('loadfeed-conformance');

export const RESULT_LINE: Record<RunResult, string> = {
  passed: 'every required check ran and passed',
  failed: 'a required check failed',
  incomplete: 'incomplete: no required check failed, but some could not run, so the run has not passed',
  unusable: 'not tested: the kit could not test the deployment, so the run has not passed',
};

export interface CheckEnd {
  title: string;
  level: 'required' | 'warning';
  outcome: Outcome;
  missing?: Missing;
  reason?: string;
}

export function isMissing(value: string | undefined): value is Missing {
  return value !== undefined && value in MISSING;
}

/** Required checks that could not run and so leave the run incomplete. */
export function unverified(checks: readonly CheckEnd[]): CheckEnd[] {
  return checks.filter((check) => check.level === 'required' && check.outcome === 'skip' && MISSING[check.missing ?? 'rows'].leavesRunIncomplete);
}

/** The run's result: `fatal` is why the run could not test (the ledger's), and a run where no check ran tested nothing. */
export function runResult(checks: readonly CheckEnd[], fatal?: string): RunResult {
  if (fatal !== undefined || checks.length === 0) return 'unusable';
  if (checks.some((check) => check.level === 'required' && check.outcome === 'fail')) return 'failed';
  return unverified(checks).length > 0 ? 'incomplete' : 'passed';
}
