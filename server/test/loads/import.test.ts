import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_CHARACTERS, importLoadLines, importLoads, ImportRejectedError, type ImportLine, type NumberedRow } from '../../src/loads/import.js';
import { IMPORT_LOCK_CLASS } from '../../src/loads/import-sql.js';
import { OperatorError } from '../../src/customers.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp, type TestApp } from '../support/app.js';

/** Whether an import holds its customer's turn: taken right before its first batch is upserted. */
const UPSERTING_SQL = `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objsubid = 2 AND granted`;

async function rejection(app: TestApp, rows: NumberedRow[]): Promise<ImportRejectedError> {
  const error = await importLoads(app.pool, 'acme', rows).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ImportRejectedError);
  return error as ImportRejectedError;
}

describe('importing loads', () => {
  const database = useTestDatabase();
  let app: TestApp;

  const count = async () => (await app.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM loads')).rows[0]!.n;

  beforeAll(async () => {
    app = await startApp(database.url);
    await app.customer('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('imports nothing when any row is bad, and names every bad line and why', async () => {
    const before = await count();
    const error = await rejection(app, [
      { line: 1, value: aLoad('OK-1') },
      { line: 2, value: { loadNumber: 'X', status: 'Lost' } },
      { line: 3, value: aLoad('OK-2', { miles: '12,5', originState: 'Texas' }) },
      { line: 4, value: { status: 'Covered' } },
      { line: 5, value: aLoad('OK-3', { scheduledPickupDate: '2026-06-01T08:00:00' }) },
      { line: 6, value: aLoad('OK-1') },
      { line: 7, value: [1, 2] },
      { line: 8, value: { ...aLoad('OK-4'), updatedAt: '2026-01-01T00:00:00Z', color: 'red' } },
      { line: 9, value: aLoad('OK-5', { scheduledPickupTime: '8:00', poNumber: '' }) },
    ]);
    expect(await count()).toBe(before);
    const byLine = new Map<number, string[]>();
    for (const problem of error.problems) byLine.set(problem.line, [...(byLine.get(problem.line) ?? []), problem.message]);
    expect([...byLine.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(byLine.get(2)).toEqual([expect.stringMatching(/^status must be one of PrePlanning, .* \(got "Lost"\)$/)]);
    expect(byLine.get(3)).toHaveLength(2);
    expect(byLine.get(3)!.join(' ')).toContain('miles');
    expect(byLine.get(3)!.join(' ')).toContain('originState');
    expect(byLine.get(4)).toEqual(['loadNumber is required']);
    expect(byLine.get(5)![0]).toContain('scheduledPickupDate must be an RFC 3339 date-time with Z or an offset');
    expect(byLine.get(6)).toEqual(['loadNumber "OK-1" appears already on line 1']);
    expect(byLine.get(7)).toEqual(['must be a JSON object of Load fields']);
    expect(byLine.get(8)).toEqual([expect.stringContaining('updatedAt is kept by the server'), '"color" is not a Load field']);
    expect(byLine.get(9)).toHaveLength(2);
  });

  it('reports inserted, changed and unchanged rows', async () => {
    expect(await app.load('acme', [aLoad('S-1'), aLoad('S-2'), aLoad('S-3')])).toEqual({ inserted: 3, changed: 0, unchanged: 0 });
    expect(await app.load('acme', [aLoad('S-1'), aLoad('S-2', { status: 'Covered' }), aLoad('S-4')])).toEqual({ inserted: 1, changed: 1, unchanged: 1 });
  });

  it('treats a left-out nullable field as null, so re-importing without it clears it', async () => {
    await app.load('acme', [aLoad('N-1', { poNumber: 'P-9' })]);
    expect(await app.load('acme', [aLoad('N-1')])).toEqual({ inserted: 0, changed: 1, unchanged: 0 });
    const { rows } = await app.pool.query("SELECT po_number FROM loads WHERE load_number = 'N-1'");
    expect(rows[0].po_number).toBeNull();
  });

  it('keeps decimal strings as written', async () => {
    await app.load('acme', [aLoad('D-1', { miles: '0012.500', totalCost: '-3.10' })]);
    const { rows } = await app.pool.query("SELECT miles::text, total_cost::text FROM loads WHERE load_number = 'D-1'");
    expect(rows[0]).toEqual({ miles: '12.500', total_cost: '-3.10' });
  });

  it('counts a decimal rewritten as the API shows it differently (10.5 to 10.50) as changed, as the trigger does', async () => {
    await app.load('acme', [aLoad('D-2', { miles: '10.5' })]);
    const stampOf = async () => (await app.pool.query("SELECT updated_at, miles::text FROM loads WHERE load_number = 'D-2'")).rows[0];
    const before = await stampOf();
    expect(await app.load('acme', [aLoad('D-2', { miles: '10.50' })])).toEqual({ inserted: 0, changed: 1, unchanged: 0 });
    const after = await stampOf();
    expect(after.miles).toBe('10.50');
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(await app.load('acme', [aLoad('D-2', { miles: '10.50' })])).toEqual({ inserted: 0, changed: 0, unchanged: 1 });
  });

  it('writes more rows than one COPY chunk holds and counts them all', async () => {
    const rows = Array.from({ length: 2_005 }, (_, index) => aLoad(`B-${index}`, { originCity: 'tab\there, back\\slash\nnewline' }));
    expect(await app.load('acme', rows)).toEqual({ inserted: 2_005, changed: 0, unchanged: 0 });
    expect(await app.load('acme', rows)).toEqual({ inserted: 0, changed: 0, unchanged: 2_005 });
    const { rows: stored } = await app.pool.query("SELECT DISTINCT origin_city FROM loads WHERE load_number LIKE 'B-%'");
    expect(stored).toEqual([{ origin_city: 'tab\there, back\\slash\nnewline' }]);
  });

  it('names an unknown customer', async () => {
    await expect(importLoads(app.pool, 'nobody', [{ line: 1, value: aLoad('Z') }])).rejects.toThrow(OperatorError);
    await expect(importLoads(app.pool, 'nobody', [{ line: 1, value: aLoad('Z') }])).rejects.toThrow(/"nobody"/);
  });

  it('keeps each customer\'s loadNumbers apart', async () => {
    await app.customer('other');
    await app.load('acme', [aLoad('SAME', { poNumber: 'mine' })]);
    expect(await app.load('other', [aLoad('SAME', { poNumber: 'theirs' })])).toEqual({ inserted: 1, changed: 0, unchanged: 0 });
    const { rows } = await app.pool.query("SELECT po_number FROM loads WHERE load_number = 'SAME' ORDER BY po_number");
    expect(rows.map((row) => row.po_number)).toEqual(['mine', 'theirs']);
  });

  // The first batch is small (src/loads/import.ts, FIRST_BATCH_SHARE): PostgreSQL starts writing while Node
  // reads the rest, instead of waiting for a whole batch (~17,000 loads) to be read first.
  it('upserts its first batch while the input is still being read, long before a whole batch is', async () => {
    const upserting = async () => (await app.pool.query<{ n: number }>(UPSERTING_SQL, [IMPORT_LOCK_CLASS])).rows[0]!.n > 0;
    // A batch holds BATCH_CHARACTERS of COPY text, a load here ~150 characters of it: this many loads is a
    // tenth of a batch, and more than the first batch.
    const before = Math.ceil(BATCH_CHARACTERS / 150 / 10);
    let seenWhileReading = false;
    async function* lines(): AsyncGenerator<ImportLine> {
      for (let line = 1; line <= before; line++) yield { line, value: aLoad(`F-${line}`) };
      for (let attempt = 0; attempt < 200 && !seenWhileReading; attempt++) {
        seenWhileReading = await upserting();
        if (!seenWhileReading) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      yield { line: before + 1, value: aLoad('F-last') };
    }
    const { summary } = await importLoadLines(app.pool, 'acme', lines());
    expect(seenWhileReading).toBe(true);
    expect(summary.inserted).toBe(before + 1);
  });
});
