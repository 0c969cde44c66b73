// The end of a sync into a copy that can count: find the loads the feed no longer serves (find.ts), make
// sure of them, and mark them removed (or delete them). A load found absent is only a suspect: a load
// updated while an older writer of the customer is in flight is hidden by the settled horizon until that
// writer ends. So the sync catches up by delta once more, and a suspect is removed only when that delta,
// settled through an instant after the absence was seen, still does not serve it. A deployment that does
// not say how far its feed is settled gives no such instant: its suspects wait for a later run.
import type { CallOptions, LoadfeedClient } from '../client.js';
import type { Clock } from '../clock.js';
import type { SyncFilters } from '../sync.js';
import type { RemovalCopy } from './copy.js';
import { comparedFrom, findSuspects } from './find.js';

export interface CatchUp {
  /** The loadNumbers the delta served. */
  delivered: ReadonlySet<string>;
  /** How far its last response said the feed was settled (epoch ms), if it said. */
  settledThrough: number | undefined;
}

export interface ReconcileOptions {
  client: LoadfeedClient;
  clock: Clock;
  copy: RemovalCopy;
  filters: SyncFilters;
  pageSize: number;
  deleteRemoved: boolean;
  call: CallOptions;
  read(filters: SyncFilters): Promise<ReadonlySet<string>>;
  catchUp(): Promise<CatchUp>;
}

export interface RemovalOutcome {
  /** Loads marked removed (or deleted) by this run. */
  removed: number;
  /** Loads found absent that this run could not yet make sure of: a later run judges them again. */
  pending: number;
}

/** How far past the instant an absence was seen a settled horizon must be: Date's whole seconds and the clocks of instance and database. */
const SETTLED_SLACK_MS = 2_000;
/** The longest this run waits for the server's clock to pass that instant before it catches up. */
const LONGEST_WAIT_MS = 10_000;

export async function reconcileRemovals(options: ReconcileOptions): Promise<RemovalOutcome> {
  const { client, clock, copy, call } = options;
  const found = await findSuspects(options);
  if (found.loadNumbers.length === 0) return { removed: 0, pending: 0 };
  const pending = { removed: 0, pending: found.loadNumbers.length };
  const confirmAfter = found.seenAt + SETTLED_SLACK_MS;
  const wait = confirmAfter - client.serverNow();
  if (wait > LONGEST_WAIT_MS) return pending;
  // A feed with no writer in flight is settled to about now: a little past the instant, then.
  if (wait > 0) await clock.sleep(wait + 100, call.signal);
  const caught = await options.catchUp();
  if (caught.settledThrough === undefined || caught.settledThrough <= confirmAfter) return pending;
  // The window moved by a day during the run: what was compared may now be its first day.
  if (comparedFrom(client.serverNow()) !== found.comparedFrom) return pending;
  const removed = found.loadNumbers.filter((loadNumber) => !caught.delivered.has(loadNumber));
  if (removed.length > 0) await copy.markRemoved(removed, new Date(caught.settledThrough).toISOString(), { delete: options.deleteRemoved });
  return { removed: removed.length, pending: 0 };
}
