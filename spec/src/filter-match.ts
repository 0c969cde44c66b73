// Whether a load matches read filters, by each filter's kind (filters.ts): the one statement of the
// matching rules outside SQL, which the SDK's mock serves by and the conformance kit checks against. Pure,
// so that a browser can run it.
import type { Load } from './contract.js';
import { LIST_LOADS_FILTERS, type FilterKey, type FilterKind, type LoadFilters } from './filters.js';

type Test = (load: Load) => boolean;

/** A date-time field's instant in ms; NaN for null, which no bound admits. */
function instantOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

function testOf(kind: FilterKind, field: keyof Load, value: string | readonly string[]): Test {
  switch (kind) {
    case 'since':
    case 'lower bound': {
      const from = Date.parse(value as string);
      return (load) => instantOf(load[field]) >= from;
    }
    case 'upper bound': {
      const to = Date.parse(value as string);
      return (load) => instantOf(load[field]) <= to;
    }
    case 'set': {
      const values: ReadonlySet<unknown> = new Set(value as readonly string[]);
      return (load) => values.has(load[field]);
    }
    case 'exact':
      return (load) => load[field] === value;
  }
}

/**
 * The test of the filters given (all of them: AND), their values read once; undefined when none is given.
 * `ignoring` leaves out filters the caller applies itself (the mock starts at updatedSince's first row in
 * its rows ordered by updatedAt).
 */
export function loadMatcher(filters: Partial<LoadFilters>, ignoring: readonly FilterKey[] = []): Test | undefined {
  const tests: Test[] = [];
  for (const { key, field, kind } of LIST_LOADS_FILTERS) {
    const value = (filters as Record<string, string | readonly string[] | undefined>)[key];
    if (value !== undefined && !ignoring.includes(key)) tests.push(testOf(kind, field, value));
  }
  if (tests.length === 0) return undefined;
  return (load) => tests.every((test) => test(load));
}
