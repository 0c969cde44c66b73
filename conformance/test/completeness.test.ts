import { describe, expect, it } from 'vitest';
import { EXIT_CODE, runResult, type CheckEnd } from '../src/completeness.js';
import { coverage } from '../src/coverage.js';

const check = (overrides: Partial<CheckEnd>): CheckEnd => ({ title: 'pagination › a check', level: 'required', outcome: 'pass', ...overrides });

describe('runResult', () => {
  it('passes only when every required check ran and passed', () => {
    expect(runResult([check({}), check({ level: 'warning', outcome: 'warning' })])).toBe('passed');
  });

  it('is "unusable" (exit 2), never passed, when the run could not test: a fatal reason, or no check at all', () => {
    expect(runResult([check({})], 'the API key was refused')).toBe('unusable');
    expect(runResult([])).toBe('unusable');
    expect(EXIT_CODE.unusable).toBe(2);
  });

  it('fails on a required failure, even when other checks could not run', () => {
    expect(runResult([check({ outcome: 'fail' }), check({ outcome: 'skip', missing: 'rows' })])).toBe('failed');
  });

  it('is incomplete when a required check lacked rows, a key, the budget or a readable answer', () => {
    for (const missing of ['rows', 'second-key', 'revoked-key', 'budget', 'deployment'] as const) {
      expect(runResult([check({}), check({ outcome: 'skip', missing })])).toBe('incomplete');
    }
    expect(EXIT_CODE.incomplete).toBe(3);
  });

  it('does not count a check the caller left out (--no-exhaust), nor a skipped warning', () => {
    expect(runResult([check({ outcome: 'skip', missing: 'opted-out' }), check({ level: 'warning', outcome: 'skip', missing: 'rows' })])).toBe('passed');
  });
});

describe('coverage', () => {
  it('verifies a rule only when every required check of it passed; a warning never verifies one', () => {
    const rows = coverage([
      check({ title: 'pagination › a walk at a small page size returns no loadNumber twice (SPEC §4)' }),
      check({ title: 'pagination › the page after the last one is empty with hasMore false (SPEC §2, §4)', outcome: 'skip' }),
      check({ title: 'errors › the service is read-only: a write to /api/v1/loads is refused (SPEC §1)', level: 'warning' }),
    ]);
    expect(rows.find((row) => /every row once/.test(row.rule))?.verdict).toBe('partly verified');
    expect(rows.find((row) => /read-only/.test(row.rule))?.verdict).toBe('not verified');
    expect(rows.find((row) => /updatedAt changes only/.test(row.rule))?.verdict).toBe('not observable');
  });
});
