// A copy the test keeps itself, through syncLoads' `upsert` and `removals`: rows by loadNumber and the
// loads marked removed; an upsert unmarks, as the destinations' writes do.
import type { LoadRow } from '../src/index.js';
import { inSpan, type PickupSpan, type RemovalCopy } from '../src/removals/copy.js';

export function memoryRemovalCopy() {
  const rows = new Map<string, LoadRow>();
  const removed = new Map<string, string>();
  const current = (span: PickupSpan) => [...rows.values()].filter((row) => !removed.has(row.loadNumber) && inSpan(span, row.scheduledPickupDate)).map((row) => row.loadNumber);
  const removals: RemovalCopy = {
    countLoads: (span) => current(span).length,
    listLoads: current,
    latestPickup: () =>
      [...rows.values()].filter((row) => !removed.has(row.loadNumber) && row.scheduledPickupDate !== null).map((row) => row.scheduledPickupDate!).sort().at(-1),
    markRemoved(loadNumbers, removedAt, { delete: deleting }) {
      for (const loadNumber of loadNumbers) {
        if (deleting) rows.delete(loadNumber);
        else removed.set(loadNumber, removedAt);
      }
    },
    removedAmong: (loadNumbers) => new Set(loadNumbers.filter((loadNumber) => removed.has(loadNumber))),
  };
  return {
    rows,
    removed,
    removals,
    upsert(batch: LoadRow[]) {
      for (const row of batch) {
        const mine = rows.get(row.loadNumber);
        if (mine && mine.updatedAt > row.updatedAt) continue;
        rows.set(row.loadNumber, row);
        removed.delete(row.loadNumber);
      }
    },
    /** Loadnumbers the copy holds unmarked. */
    unmarked: () => [...rows.keys()].filter((loadNumber) => !removed.has(loadNumber)).sort(),
  };
}
