// The generic suites (sync, verify, removals, suspects, locks) run over copies.ts's list of destinations:
// a destination registered without an entry there would go untested by all of them.
import { describe, expect, it } from 'vitest';
import { DESTINATION_KINDS } from '../../src/destinations.js';
import { everyDestination } from './copies.js';

describe('the destinations the tests know', () => {
  it('are every destination in DESTINATION_KINDS, one case each', () => {
    const casesFlags = everyDestination({ url: 'postgres://unused' }).map((destination) => destination.args('copy')[0]);

    expect(casesFlags.sort()).toEqual(DESTINATION_KINDS.map((kind) => `--${kind.flag}`).sort());
  });
});
