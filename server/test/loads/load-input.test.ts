// The field checks of an imported load: every problem named with its field, and nothing the database
// would refuse (a value too long for its index) let through.
import { describe, expect, it } from 'vitest';
import { checkLoadInput, MAX_DECIMAL_LENGTH, MAX_TEXT_LENGTH } from '../../src/loads/load-input.js';

const valid = { loadNumber: 'L-1', status: 'Available', originCity: 'Dallas', miles: '120.5' };

describe('checkLoadInput', () => {
  it('takes a text field of the longest allowed length, in characters of up to four bytes', () => {
    expect(checkLoadInput({ ...valid, loadNumber: '𝔏'.repeat(MAX_TEXT_LENGTH / 2) }).ok).toBe(true);
    expect(checkLoadInput({ ...valid, billingRefNumber: 'b'.repeat(MAX_TEXT_LENGTH) }).ok).toBe(true);
  });

  it.each(['loadNumber', 'poNumber', 'billingRefNumber', 'originCity', 'destinationWarehouse'])(`refuses a %s over ${MAX_TEXT_LENGTH} characters, naming the field, its length and the limit`, (field) => {
    const check = checkLoadInput({ ...valid, [field]: 'x'.repeat(MAX_TEXT_LENGTH + 1) });
    expect(check).toEqual({ ok: false, problems: [`${field} is too long: ${MAX_TEXT_LENGTH + 1} characters, at most ${MAX_TEXT_LENGTH}`] });
  });

  it('refuses a 5 MB field with one short message, and still names the other bad fields of the row', () => {
    const check = checkLoadInput({ ...valid, originState: 'x'.repeat(5 * 1024 * 1024), status: 'Lost' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems).toHaveLength(2);
    expect(check.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^status must be one of /), `originState is too long: ${5 * 1024 * 1024} characters, at most ${MAX_TEXT_LENGTH}`]));
  });

  it('refuses a decimal string of more digits than any amount has', () => {
    const check = checkLoadInput({ ...valid, totalCost: '9'.repeat(MAX_DECIMAL_LENGTH + 1) });
    expect(check).toEqual({ ok: false, problems: [`totalCost is too long: ${MAX_DECIMAL_LENGTH + 1} characters, at most ${MAX_DECIMAL_LENGTH}`] });
  });

  it('quotes a long bad value cut short', () => {
    const check = checkLoadInput({ ...valid, scheduledPickupDate: `2026-01-01T00:00:00Z${' '.repeat(200)}` });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]!.length).toBeLessThan(200);
    expect(check.problems[0]).toMatch(/^scheduledPickupDate must be an RFC 3339 date-time .*… \(222 characters\)\)$/);
  });

  it.each([
    ['a lone low surrogate', 'A\udc00', /^originCity holds a lone surrogate /],
    ['a lone high surrogate at the end', 'A\ud83d', /^originCity holds a lone surrogate /],
    ['a NUL', 'A\u0000B', /^originCity holds a NUL character /],
  ])('refuses %s, which PostgreSQL cannot store, naming the field', (_name, originCity, message) => {
    const check = checkLoadInput({ ...valid, originCity });
    expect(check).toEqual({ ok: false, problems: [expect.stringMatching(message)] });
  });

  it('takes a character outside the Basic Multilingual Plane (a surrogate pair)', () => {
    expect(checkLoadInput({ ...valid, originCity: 'A\ud83d\ude9a' }).ok).toBe(true);
  });

  it('names a __proto__ key read from JSON as an unknown field, as it names constructor', () => {
    const check = checkLoadInput(JSON.parse('{"loadNumber":"L-1","status":"Available","__proto__":{"status":"Lost"},"constructor":1}'));
    expect(check).toEqual({ ok: false, problems: ['"__proto__" is not a Load field', '"constructor" is not a Load field'] });
  });

  it('refuses a date-time PostgreSQL cannot store or the API cannot show in four digits', () => {
    for (const scheduledPickupDate of ['0000-12-31T23:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00']) {
      expect(checkLoadInput({ ...valid, scheduledPickupDate })).toEqual({ ok: false, problems: [expect.stringMatching(/^scheduledPickupDate must be an RFC 3339 date-time/)] });
    }
    expect(checkLoadInput({ ...valid, scheduledPickupDate: '0001-01-01T00:00:00Z' }).ok).toBe(true);
    expect(checkLoadInput({ ...valid, scheduledPickupDate: '9999-12-31T23:59:59.999Z' }).ok).toBe(true);
  });
});
