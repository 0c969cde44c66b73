import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feedWindowStart } from '../src/index.js';

const at = (iso: string) => feedWindowStart(new Date(iso)).toISOString();

describe('feedWindowStart: today (UTC) minus 12 months (SPEC §1, DECISIONS.md)', () => {
  it('starts at midnight UTC of the same day a year earlier', () => {
    expect(at('2026-11-25T23:59:59.999Z')).toBe('2025-11-25T00:00:00.000Z');
    expect(at('2026-01-01T00:00:00.000Z')).toBe('2025-01-01T00:00:00.000Z');
  });

  it('clamps a day past the end of a shorter month to its last day (29 February in a leap year)', () => {
    expect(at('2028-02-29T12:00:00.000Z')).toBe('2027-02-28T00:00:00.000Z');
    expect(at('2029-02-28T12:00:00.000Z')).toBe('2028-02-28T00:00:00.000Z');
  });

  it('is always a UTC midnight 365 or 366 days before today, and never moves back as time goes on', () => {
    const instants = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2200, 0, 1) });
    fc.assert(
      fc.property(instants, instants, (a, b) => {
        const [earlier, later] = a <= b ? [a, b] : [b, a];
        const start = feedWindowStart(new Date(earlier)).getTime();
        const today = earlier - (earlier % 86_400_000);
        expect(start % 86_400_000).toBe(0);
        expect([365, 366]).toContain((today - start) / 86_400_000);
        expect(feedWindowStart(new Date(later)).getTime()).toBeGreaterThanOrEqual(start);
      }),
    );
  });
});
