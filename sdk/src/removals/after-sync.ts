// The comparison at the end of syncLoads, for a copy that can count (a destination's, or the caller's
// `removals`): reconcile.ts with the sync's client, filters and page size, ranges read by the key walk.
// A range read writes the rows the copy lacks; those stamped before the run's cursor are rows the walk
// missed (the deployment served them behind pages already read), which the summary counts as `recovered`.
import { DEFAULT_PAGE_SIZE } from '@loadfeed/spec';
import type { Clock } from '../clock.js';
import { sinkOf } from '../sync-run.js';
import { syncLoads, type SyncOptions, type SyncSummary } from '../sync.js';
import { reconcileRemovals, type CatchUp } from './reconcile.js';

/** `catchUp` walks the delta again from the run's cursor, noting what it serves. */
export async function removalsAfterSync(options: SyncOptions, clock: Clock, summary: () => SyncSummary, catchUp: () => Promise<CatchUp>): Promise<SyncSummary> {
  const copy = options.removals ?? options.destination?.removals;
  if (copy === undefined) return summary();
  const { client, signal, onWait } = options;
  const call = { ...(signal ? { signal } : {}), ...(onWait ? { onWait } : {}) };
  const pageSize = summary().pageSize ?? DEFAULT_PAGE_SIZE;
  const sink = sinkOf(options);
  let written = 0;
  let recovered = 0;
  const outcome = await reconcileRemovals({
    client,
    clock,
    copy,
    filters: options.filters ?? {},
    pageSize,
    deleteRemoved: options.deleteRemoved ?? false,
    call,
    cursor: () => summary().cursor,
    async read(filters, held) {
      const served = new Set<string>();
      const cursor = summary().cursor;
      await syncLoads({
        client,
        filters,
        overlapMs: 0,
        pageSize,
        ...call,
        async upsert(rows) {
          for (const row of rows) served.add(row.loadNumber);
          const lacking = rows.filter((row) => !held.has(row.loadNumber));
          if (lacking.length === 0) return;
          // Written without the cursor: it stays where the walk left it.
          await sink.write(lacking, undefined);
          written += lacking.length;
          recovered += lacking.filter((row) => cursor !== undefined && Date.parse(row.updatedAt) <= Date.parse(cursor)).length;
        },
      });
      return served;
    },
    catchUp,
  });
  const done = summary();
  return { ...done, rows: done.rows + written, removed: outcome.removed, removalsPending: outcome.pending, recovered };
}
