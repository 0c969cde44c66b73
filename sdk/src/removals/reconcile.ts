// The end of a sync into a copy that can count: compare it with the feed (find.ts), make sure of the loads
// found absent, and mark them removed (or delete them). A load found absent is only a suspect: a load
// updated while an older writer of the customer is in flight is hidden by the settled horizon until that
// writer ends. So the sync catches up by delta once more, and a suspect is removed only when that delta,
// settled through an instant after the absence was seen, still does not serve it. A deployment that does
// not say how far its feed is settled gives no such instant: its suspects are kept in the copy (where it
// keeps them) and marked by the next run that still finds them absent; one served again is dropped.
// The catch-up also settles the ranges where the feed counted more than the copy: what the delta did not
// bring there, the walk missed, and the counts find and write it.
import type { CallOptions, LoadfeedClient } from '../client.js';
import type { Clock } from '../clock.js';
import type { SyncFilters } from '../sync.js';
import type { RemovalCopy, Suspect } from './copy.js';
import { compareWithFeed, comparedFrom, settleAhead } from './find.js';

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
  /** Reads the feed by the key walk, writing the rows served that are not in `held`; resolves to the loadNumbers served. */
  read(filters: SyncFilters, held: ReadonlySet<string>): Promise<ReadonlySet<string>>;
  /** The copy's cursor now. */
  cursor(): string | undefined;
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

const iso = (ms: number) => new Date(ms).toISOString();

export async function reconcileRemovals(options: ReconcileOptions): Promise<RemovalOutcome> {
  const { client, clock, copy, call } = options;
  const earlier = new Map(((await copy.loadSuspects?.()) ?? []).map((suspect) => [suspect.loadNumber, Date.parse(suspect.seenAt)]));
  const found = await compareWithFeed(options);
  const absent = found.loadNumbers;
  if (absent.length === 0 && found.ahead.length === 0) {
    if (earlier.size > 0) await copy.saveSuspects?.([]);
    return { removed: 0, pending: 0 };
  }
  const confirmAfter = found.seenAt + SETTLED_SLACK_MS;
  const wait = absent.length === 0 ? 0 : confirmAfter - client.serverNow();
  // A feed with no writer in flight is settled to about now: a little past the instant, then.
  if (wait > 0 && wait <= LONGEST_WAIT_MS) await clock.sleep(wait + 100, call.signal);
  const caught = await options.catchUp();
  const settled = await settleAhead(options, found.ahead, new Set(absent));
  const stillAbsent = absent.filter((loadNumber) => !caught.delivered.has(loadNumber) && !settled.served.has(loadNumber));
  // The window moved by a day during the run: what was compared may now be its first day.
  const windowHeld = comparedFrom(client.serverNow()) === found.comparedFrom;
  const confirmedNow = windowHeld && wait <= LONGEST_WAIT_MS && caught.settledThrough !== undefined && caught.settledThrough > confirmAfter;

  const removed: string[] = [];
  const pending: Suspect[] = [];
  for (const loadNumber of stillAbsent) {
    const firstSeen = earlier.get(loadNumber);
    // Absent in an earlier run and again in this one, well after: the next run's confirmation.
    const confirmedAgain = windowHeld && firstSeen !== undefined && firstSeen + SETTLED_SLACK_MS < found.seenAt;
    if (confirmedNow || confirmedAgain) removed.push(loadNumber);
    else pending.push({ loadNumber, seenAt: iso(firstSeen ?? found.seenAt) });
  }
  for (const loadNumber of settled.loadNumbers) pending.push({ loadNumber, seenAt: iso(earlier.get(loadNumber) ?? settled.seenAt) });
  const removedAt = confirmedNow ? caught.settledThrough! : found.seenAt;
  if (removed.length > 0) await copy.markRemoved(removed, iso(removedAt), { delete: options.deleteRemoved });
  if (pending.length > 0 || earlier.size > 0) await copy.saveSuspects?.(pending);
  return { removed: removed.length, pending: pending.length };
}
