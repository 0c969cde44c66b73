// The removal pass at the end of syncLoads, for a copy that can count (a destination's, or the caller's
// `removals`): reconcile.ts with the sync's client, filters and page size, ranges read by the key walk.
import { DEFAULT_PAGE_SIZE } from '@loadfeed/spec';
import type { Clock } from '../clock.js';
import { syncLoads, type SyncOptions, type SyncSummary } from '../sync.js';
import { reconcileRemovals, type CatchUp } from './reconcile.js';

/** `catchUp` walks the delta again from the run's cursor, noting what it serves. */
export async function removalsAfterSync(options: SyncOptions, clock: Clock, summary: () => SyncSummary, catchUp: () => Promise<CatchUp>): Promise<SyncSummary> {
  const copy = options.removals ?? options.destination?.removals;
  if (copy === undefined) return summary();
  const { client, signal, onWait } = options;
  const call = { ...(signal ? { signal } : {}), ...(onWait ? { onWait } : {}) };
  const pageSize = summary().pageSize ?? DEFAULT_PAGE_SIZE;
  const outcome = await reconcileRemovals({
    client,
    clock,
    copy,
    filters: options.filters ?? {},
    pageSize,
    deleteRemoved: options.deleteRemoved ?? false,
    call,
    async read(filters) {
      const served = new Set<string>();
      await syncLoads({ client, filters, overlapMs: 0, pageSize, ...call, upsert: (rows) => rows.forEach((row) => served.add(row.loadNumber)) });
      return served;
    },
    catchUp,
  });
  return { ...summary(), removed: outcome.removed, removalsPending: outcome.pending };
}
