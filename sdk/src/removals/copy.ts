// What removal detection needs of a copy (a destination's, or storage of the caller's own): its own counts
// of the loads it holds over a pickup-date range, their loadNumbers, and a way to mark (or delete) those
// that left the feed, and where it can, the suspects a run leaves for the next. Only loads not marked
// removed are counted or listed: a marked load is no longer in the copy's view of the feed, and a load
// the sync writes again is unmarked by that write.

/** Pickup dates in [from, before) as epoch ms; `before` undefined: no upper end. */
export interface PickupRange {
  from: number;
  before: number | undefined;
}

/** A load found absent that a run could not yet make sure of, and the instant (ISO date-time, server time) its absence was first seen. */
export interface Suspect {
  loadNumber: string;
  seenAt: string;
}

/** A range of pickup dates, or the loads with no pickup date (which fall in no range). */
export type PickupSpan = PickupRange | 'none';

export interface RemovalCopy {
  /** How many loads the copy holds, not marked removed, whose scheduledPickupDate falls in `span`. */
  countLoads(span: PickupSpan): Promise<number> | number;
  /** Their loadNumbers. */
  listLoads(span: PickupSpan): Promise<readonly string[]> | readonly string[];
  /** The latest scheduledPickupDate among them (ISO date-time), undefined when it holds none. */
  latestPickup(): Promise<string | undefined> | string | undefined;
  /** Marks these loads removed at `removedAt` (an ISO date-time); `delete: true` deletes them instead. */
  markRemoved(loadNumbers: readonly string[], removedAt: string, options: { delete: boolean }): Promise<void> | void;
  /** Of these loadNumbers, those the copy holds marked removed (for `verifyCopy`). */
  removedAmong(loadNumbers: readonly string[]): Promise<ReadonlySet<string>> | ReadonlySet<string>;
  /**
   * The suspects a run left for the next one (none before the first save). With `saveSuspects`, a load
   * found absent on a deployment that does not say how far its feed is settled is marked by the next run
   * that still finds it absent; without them it is never marked.
   */
  loadSuspects?(): Promise<readonly Suspect[]> | readonly Suspect[];
  /** Replaces the suspects kept for the next run. */
  saveSuspects?(suspects: readonly Suspect[]): Promise<void> | void;
}

/** Whether a pickup date (ISO date-time or null) falls in `span`. */
export function inSpan(span: PickupSpan, pickup: string | null | undefined): boolean {
  if (span === 'none') return pickup === null || pickup === undefined;
  if (pickup === null || pickup === undefined) return false;
  const ms = Date.parse(pickup);
  return ms >= span.from && (span.before === undefined || ms < span.before);
}

/** The range's bounds as ISO date-times for a query: `from` inclusive, `before` exclusive (null: open). */
export function spanBounds(range: PickupRange): [string, string | null] {
  return [new Date(range.from).toISOString(), range.before === undefined ? null : new Date(range.before).toISOString()];
}
