// The indexes whose predicate holds the window's cutoff (`scheduled_pickup_date >= :cutoff`), which the
// server re-creates once a month with a later one (feed-index.ts), so that they drop the loads that aged
// out of the 12-month window. Each is defined by its file under sql/indexes/, with :name and :cutoff
// filled in; its name is the prefix followed by the cutoff's date (YYYY_MM_DD), which is how the server
// finds it. A query's window start, later than the cutoff, implies the predicate, so the planner keeps
// choosing them. The other indexes of sql/indexes/ are fixed (sql/README.md).

export interface CutOffIndex {
  /** The file under sql/indexes/ that defines it. */
  file: string;
  /** Its name without the cutoff's date. */
  prefix: string;
}

export const CUT_OFF_INDEXES: readonly CutOffIndex[] = [
  /** The feed index. Also read by sql/functions/feed_index_cutoff.sql, which takes the cutoff back from the name. */
  { file: 'loads_feed_since.sql', prefix: 'loads_feed_since_' },
  /** The status filter's index. */
  { file: 'loads_feed_status.sql', prefix: 'loads_feed_status_' },
];

/** The cut-off index that `name` (an index of loads) is a version of, if any. */
export function cutOffIndexOf(name: string): CutOffIndex | undefined {
  return CUT_OFF_INDEXES.find((index) => name.startsWith(index.prefix) && /^\d{4}_\d{2}_\d{2}/.test(name.slice(index.prefix.length)));
}
