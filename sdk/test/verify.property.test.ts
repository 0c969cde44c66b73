// verifyCopy over random damage to a copy (the mock in simulated time, a copy in memory): whatever rows
// are deleted, altered or added, and whichever loads change on the server after the copy's cursor, the
// report counts each kind exactly, and says the copy is complete only when nothing is missing, different
// or unexplained.
import fc from 'fast-check';
import { LOAD_STATUSES } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import { syncLoads, verifyCopy, type CopyDestination, type LoadRow } from '../src/index.js';
import { loadInput, mockSetup } from './helpers.js';

const YEAR_MS = 365 * 86_400_000;

/** A copy in memory, behind the destination interface. */
function memoryCopy(): CopyDestination & { rows: Map<string, LoadRow> } {
  const rows = new Map<string, LoadRow>();
  let cursor: string | undefined;
  return {
    rows,
    loadCursor: () => cursor,
    write(batch, next) {
      for (const row of batch) rows.set(row.loadNumber, row);
      if (next !== undefined) cursor = next;
    },
    async readRows(loadNumbers) {
      return loadNumbers.flatMap((loadNumber) => (rows.has(loadNumber) ? [rows.get(loadNumber)!] : []));
    },
    async *loadNumbers() {
      yield [...rows.keys()];
    },
    async close() {},
  };
}

/** Each load gets one fate: kept, deleted from the copy, altered in the copy, or changed on the server. */
const fate = fc.constantFrom('kept', 'deleted', 'altered', 'newer');
const ALTERATIONS: ((row: LoadRow) => Partial<LoadRow>)[] = [
  (row) => ({ status: LOAD_STATUSES.find((status) => status !== row.status)! }),
  (row) => ({ miles: `${Number(row.miles) + 1}` }),
  () => ({ poNumber: null }),
  (row) => ({ scheduledPickupDate: new Date(Date.parse(row.scheduledPickupDate!) + 60_000).toISOString() }),
];

describe('verifyCopy', () => {
  it('counts missing, different, newer, aged-out and extra rows exactly, whatever the damage', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fate, { minLength: 1, maxLength: 40 }),
        fc.nat({ max: 3 }),
        fc.nat({ max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (fates, strangers, agedOut, perWrite) => {
          const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1_000_000 } });
          for (let n = 1; n <= fates.length; n += perWrite) {
            mock.upsert(Array.from({ length: Math.min(perWrite, fates.length - n + 1) }, (_, index) => loadInput(n + index)));
          }
          const copy = memoryCopy();
          await syncLoads({ client, destination: copy });
          expect(await verifyCopy({ client, copy })).toMatchObject({ complete: true, equal: fates.length });

          const kinds = { deleted: [] as string[], altered: [] as string[], newer: [] as string[] };
          // A row at the cursor's own instant is not owed yet (a sync stopped between two pages of one
          // instant has saved it): damage to it is the next sync's to mend, as a row changed after it is.
          const cursor = await copy.loadCursor();
          const atCursor = new Set([...copy.rows.values()].filter((row) => row.updatedAt === cursor).map((row) => row.loadNumber));
          fates.forEach((kind, index) => {
            const loadNumber = loadInput(index + 1).loadNumber;
            if (kind === 'deleted') copy.rows.delete(loadNumber);
            if (kind === 'altered') {
              const row = copy.rows.get(loadNumber)!;
              copy.rows.set(loadNumber, { ...row, ...ALTERATIONS[index % ALTERATIONS.length]!(row) });
            }
            if (kind === 'newer') mock.upsert([loadInput(index + 1, { miles: '1' })]);
            if (kind !== 'kept') kinds[atCursor.has(loadNumber) ? 'newer' : kind].push(loadNumber);
          });
          const like = [...copy.rows.values()][0] ?? ({ ...loadInput(1), updatedAt: new Date(client.serverNow()).toISOString() } as LoadRow);
          for (let index = 0; index < strangers; index += 1) {
            copy.rows.set(`S${index}`, { ...like, loadNumber: `S${index}`, scheduledPickupDate: new Date(client.serverNow()).toISOString() });
          }
          for (let index = 0; index < agedOut; index += 1) {
            copy.rows.set(`A${index}`, { ...like, loadNumber: `A${index}`, scheduledPickupDate: new Date(client.serverNow() - 2 * YEAR_MS).toISOString() });
          }

          const report = await verifyCopy({ client, copy });

          expect(report).toMatchObject({
            served: fates.length,
            equal: fates.filter((kind) => kind === 'kept').length,
            missing: kinds.deleted.length,
            differing: kinds.altered.length,
            newer: kinds.newer.length,
            extra: strangers,
            agedOut,
            complete: kinds.deleted.length + kinds.altered.length + strangers === 0,
          });
          expect(report.samples.missing).toEqual(kinds.deleted.slice(0, 10));
          expect(report.samples.differing.map((difference) => difference.loadNumber)).toEqual(kinds.altered.slice(0, 10));
          expect(report.samples.differing.every((difference) => difference.fields.length === 1)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('right after a sync stopped between two pages of one instant, the rest of that instant is the next sync\'s, not missing', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1_000_000 } });
    mock.upsert(Array.from({ length: 25 }, (_, index) => loadInput(index + 1)));
    const copy = memoryCopy();
    const stop = new AbortController();
    const write = copy.write.bind(copy);
    copy.write = (batch, next) => {
      write(batch, next);
      if (next !== undefined) stop.abort();
    };
    await syncLoads({ client, destination: copy, pageSize: 10, signal: stop.signal }).catch(() => undefined);
    expect(copy.rows.size).toBe(10);
    expect(await copy.loadCursor()).toBe([...copy.rows.values()][0]!.updatedAt);

    expect(await verifyCopy({ client, copy })).toMatchObject({ complete: true, equal: 10, missing: 0, newer: 15 });
  });

  it('compares decimals by value and date-times as instants, as a typed copy stores them', async () => {
    const { mock, client } = mockSetup({ mock: { rateLimitPerMinute: 1_000_000 } });
    mock.upsert([loadInput(1, { miles: '120.50', totalCost: '0.10' })]);
    const copy = memoryCopy();
    await syncLoads({ client, destination: copy });
    const row = copy.rows.get(loadInput(1).loadNumber)!;
    copy.rows.set(row.loadNumber, { ...row, miles: '120.5', totalCost: '000.1', scheduledPickupDate: row.scheduledPickupDate!.replace('.000Z', 'Z') });

    expect(await verifyCopy({ client, copy })).toMatchObject({ complete: true, equal: 1 });
  });
});
