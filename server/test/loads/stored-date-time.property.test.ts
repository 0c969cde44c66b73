// The short way for a date-time already written as stored gives what the long way (parse, then print in
// UTC) gives, for every text of that shape, valid or not: the same stored text, or the same refusal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInstant, toSqlTimestamp } from '@loadfeed/spec/query';
import { isStoredDateTime, storedDateTime, storedDateTimeMs } from '../../src/loads/stored-date-time.js';

const EARLIEST_MS = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST_MS = new Date(0).setUTCFullYear(10000, 0, 1) - 1;

/** The long way alone, as the importer checked every date-time before the short way. */
function parsedAndPrinted(text: string): string | undefined {
  const instant = parseInstant(text, { allowDate: false });
  return instant && instant.ms >= EARLIEST_MS && instant.ms <= LATEST_MS ? toSqlTimestamp(instant.ms) : undefined;
}

const digits = (length: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: length, maxLength: length }).map((list) => list.join(''));
/** The stored shape with any digits: days 31 of April, February 29 of 1900, hour 24, year 0000 included. */
const storedShape = fc
  .tuple(fc.oneof(digits(4), fc.constantFrom('0000', '0001', '1900', '2000', '2024', '9999')), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3))
  .map(([year, month, day, hour, minute, second, ms]) => `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}Z`);
const nearlyStored = fc.oneof(
  storedShape.map((text) => text.toLowerCase()),
  storedShape.map((text) => text.replace('T', ' ')),
  storedShape.map((text) => text.replace('Z', '+00:00')),
  storedShape.map((text) => text.slice(0, -2) + 'Z'),
  storedShape.map((text) => text.replace('Z', '1Z')),
  fc.constantFrom('2024-02-29T12:00:00.000Z', '2023-02-29T12:00:00.000Z', '2024-04-31T00:00:00.000Z', '2024-12-31T23:59:59.999Z', '0000-12-31T23:59:59.999Z'),
);
const instant = fc.date({ min: new Date(-62_200_000_000_000), max: new Date(253_410_000_000_000), noInvalidDate: true }).map((date) => date.toISOString());

describe('a date-time already written as stored', () => {
  it('is stored as the long way stores it, or refused as the long way refuses it', () => {
    fc.assert(
      fc.property(fc.oneof(storedShape, nearlyStored, instant), (text) => {
        expect(storedDateTime(text)).toBe(parsedAndPrinted(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes the short way for every valid instant the API serves, and never for another shape', () => {
    fc.assert(
      fc.property(instant, (text) => {
        expect(isStoredDateTime(text)).toBe(parsedAndPrinted(text) === text);
      }),
      { numRuns: 5_000 },
    );
    expect(isStoredDateTime('2024-02-29T12:00:00.000+00:00')).toBe(false);
    expect(isStoredDateTime('2024-02-29t12:00:00.000z')).toBe(false);
  });

  it('is staged as the milliseconds since 1970 it stands for, for every instant of years 0001-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: EARLIEST_MS, max: LATEST_MS }), (ms) => {
        expect(storedDateTimeMs(toSqlTimestamp(ms))).toBe(ms);
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [EARLIEST_MS, LATEST_MS, -1, 0, Date.UTC(2000, 1, 29), Date.UTC(1900, 2, 1) - 1]) expect(storedDateTimeMs(toSqlTimestamp(ms))).toBe(ms);
  });
});
