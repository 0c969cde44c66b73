// What verifyCopy remembers of the served rows: 8 bytes a row, each row once with its last outcome, and
// every loadNumber told apart from those never served.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME, servedRows, type Outcome } from '../src/served-rows.js';

const outcomes: Outcome[] = [OUTCOME.equal, OUTCOME.missing, OUTCOME.differing, OUTCOME.newer];

describe('the rows verifyCopy has seen served', () => {
  it('counts each row once, with its newer version winning, and knows which loadNumbers were served (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 0, maxLength: 300 }),
        fc.array(fc.nat({ max: 3 }), { minLength: 300, maxLength: 300 }),
        fc.array(fc.nat({ max: 299 }), { maxLength: 40 }),
        (loadNumbers, codes, changedDuringWalk) => {
          const served = loadNumbers.slice(0, Math.floor(loadNumbers.length / 2));
          const notServed = loadNumbers.slice(served.length);
          const rows = servedRows();
          const expected = new Map<string, Outcome>();
          served.forEach((loadNumber, index) => {
            rows.add(loadNumber, outcomes[codes[index]!]!);
            expected.set(loadNumber, outcomes[codes[index]!]!);
          });
          // A row changed during the walk comes again, later, changed after the cursor: the newer counts.
          for (const index of changedDuringWalk.filter((at) => at < served.length)) {
            rows.add(served[index]!, OUTCOME.newer);
            expected.set(served[index]!, OUTCOME.newer);
          }
          const tally = rows.settle();
          const count = (outcome: Outcome) => [...expected.values()].filter((value) => value === outcome).length;
          expect(tally).toEqual({ served: expected.size, equal: count(OUTCOME.equal), missing: count(OUTCOME.missing), differing: count(OUTCOME.differing), newer: count(OUTCOME.newer) });
          for (const [loadNumber, outcome] of expected) expect(rows.outcomeOf(loadNumber)).toBe(outcome);
          for (const loadNumber of notServed) expect(rows.outcomeOf(loadNumber)).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});
