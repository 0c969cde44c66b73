// Whatever a line holds, the importer's check decides: a row it takes, PostgreSQL stores as it was given,
// and a row PostgreSQL would refuse (a lone surrogate, a NUL, a year 0000) is refused by the check with
// its line, never by the database in the middle of an import that then names no line.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLoadLines } from '../../src/loads/import.js';
import { checkLoadInput } from '../../src/loads/load-input.js';
import { storedDateTime } from '../../src/loads/stored-date-time.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { startApp, type TestApp } from '../support/app.js';

const text = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
  fc.constantFrom('A\udc00', '\ud83d', 'a\u0000b', '\\N', 'tab\there', '\\.', 'x'.repeat(255), '𝔏'.repeat(128)),
);
const dateTime = fc.oneof(
  fc.constantFrom('0000-12-31T23:59:59Z', '0001-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59.999Z', '9999-12-31T23:30:00-01:00', '2026-02-30T00:00:00Z'),
  fc.date({ min: new Date(-62_200_000_000_000), max: new Date(253_410_000_000_000), noInvalidDate: true }).map((date) => date.toISOString()),
);
const decimal = fc.oneof(fc.constantFrom('-0', '00012.500', '1e5', '9'.repeat(40), '9'.repeat(41), '1.'), fc.double().map(String));

const row = fc.record(
  {
    loadNumber: text,
    status: fc.constantFrom('Available', 'Delivered', 'Lost'),
    originCity: text,
    poNumber: text,
    originState: fc.oneof(text, fc.constantFrom('TX', 'tx')),
    scheduledPickupDate: dateTime,
    scheduledPickupTime: fc.constantFrom('08:30', '24:00', '8:30'),
    miles: decimal,
  },
  { requiredKeys: ['loadNumber', 'status'] },
);

describe('what the import check lets through', () => {
  const database = useTestDatabase();
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('PostgreSQL stores every row the check takes, exactly, and the check names every other with its line', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 20 }), async (rows) => {
        round += 1;
        // Each round's loadNumbers apart from the others', and within the round.
        const numbered = rows.map((value, index) => ({ line: index + 1, value: { ...value, loadNumber: `${round}:${index}:${value.loadNumber}` } }));
        const { summary, problems } = await importLoadLines(app.pool, 'acme', numbered, { skipInvalid: true });
        const taken = numbered.filter(({ value }) => checkLoadInput(value).ok);
        expect(new Set(problems.map((problem) => problem.line))).toEqual(new Set(numbered.filter((read) => !taken.includes(read)).map((read) => read.line)));
        expect(summary.inserted).toBe(taken.length);
        // The date-time as the API serves it: the importer stages it as milliseconds since 1970 and
        // PostgreSQL makes the instant of them, which must be the one given, before 1970 and in years 0001-9999 too.
        const stored = await app.pool.query<{ load_number: string; origin_city: string | null; po_number: string | null; scheduled_pickup_date: string | null }>(
          `SELECT load_number, origin_city, po_number, load_json(l)::json->>'scheduledPickupDate' AS scheduled_pickup_date
             FROM loads AS l WHERE load_number LIKE $1::text`,
          [`${round}:%`],
        );
        const byNumber = new Map(stored.rows.map((stored) => [stored.load_number, stored]));
        for (const { value } of taken) {
          expect(byNumber.get(value.loadNumber)).toEqual({
            load_number: value.loadNumber,
            origin_city: value.originCity ?? null,
            po_number: value.poNumber ?? null,
            scheduled_pickup_date: value.scheduledPickupDate === undefined ? null : storedDateTime(value.scheduledPickupDate)!,
          });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('every date-time the check takes is served as the instant given, to the millisecond, in years 0001-9999', async () => {
    // The importer stages a date-time as milliseconds since 1970 and PostgreSQL makes the instant of them
    // (src/loads/import-sql.ts, instantOf): before 1970 the division and the remainder both round toward zero.
    const instant = fc.oneof(
      fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
      fc.integer({ min: -5_000, max: 5_000 }).map((ms) => new Date(ms)),
    );
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(instant, { minLength: 1, maxLength: 50 }), async (instants) => {
        round += 1;
        const numbered = instants.map((date, index) => ({ line: index + 1, value: { loadNumber: `when:${round}:${index}`, status: 'Available', tenderedDate: date.toISOString() } }));
        const { problems } = await importLoadLines(app.pool, 'acme', numbered);
        expect(problems).toEqual([]);
        const served = await app.pool.query<{ load_number: string; tendered_date: string }>(
          `SELECT load_number, load_json(l)::json->>'tenderedDate' AS tendered_date FROM loads AS l WHERE load_number LIKE $1::text`,
          [`when:${round}:%`],
        );
        expect(new Map(served.rows.map((row) => [row.load_number, row.tendered_date]))).toEqual(new Map(numbered.map(({ value }) => [value.loadNumber, value.tenderedDate])));
      }),
      { numRuns: 40 },
    );
  });
});
