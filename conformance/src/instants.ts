// Exact counts of the rows stamped at or after an instant, known from the oldest rows (the sample) and the
// newest rows (the tail) alone: rows come in ascending updatedAt order (SPEC §4), so every row newer than
// the tail's first row is in the tail, and every row older than the sample's last row is in the sample.
// Nothing here assumes updatedAt values are distinct: a bulk load may stamp every row with one instant.
import type { Load } from '@loadfeed/spec';
import type { Sample, Tail } from './dataset.js';

export interface Known {
  sample: Sample;
  tail: Tail;
}

const at = (row: Load | undefined) => (row === undefined ? Number.NaN : Date.parse(row.updatedAt));

/** Rows with updatedAt >= instant (ms), or undefined when the sample and tail cannot tell. */
export function countAtOrAfter({ sample, tail }: Known, instant: number): number | undefined {
  if (sample.complete) return sample.rows.filter((row) => at(row) >= instant).length;
  if (at(tail.rows[0]) < instant) return tail.rows.filter((row) => at(row) >= instant).length;
  if (at(sample.rows.at(-1)) >= instant) return sample.totalCount - sample.rows.filter((row) => at(row) < instant).length;
  return undefined;
}

/** Rows with updatedAt > instant (ms), or undefined when the sample and tail cannot tell. */
export function countAfter({ sample, tail }: Known, instant: number): number | undefined {
  if (sample.complete) return sample.rows.filter((row) => at(row) > instant).length;
  if (at(tail.rows[0]) <= instant) return tail.rows.filter((row) => at(row) > instant).length;
  if (at(sample.rows.at(-1)) > instant) return sample.totalCount - sample.rows.filter((row) => at(row) <= instant).length;
  return undefined;
}

export interface Pivot {
  /** An updatedAt value a row carries, as served. */
  updatedAt: string;
  atOrAfter: number;
  after: number;
  /** Rows known to be older: a delta from the pivot must leave them out. */
  before: number;
}

/**
 * The instant the delta checks start from: one whose counts are known exactly, preferring one with older
 * rows before it and a tie at it (several rows stamped at that instant), so that inclusion, exclusion and
 * ties are all tested; a bulk load where every row shares one instant still gives one.
 */
export function choosePivot(known: Known): Pivot | undefined {
  const values = [...new Set([...known.sample.rows, ...known.tail.rows].map((row) => row.updatedAt))];
  const candidates = values.flatMap((updatedAt): Pivot[] => {
    const instant = Date.parse(updatedAt);
    const atOrAfter = countAtOrAfter(known, instant);
    const after = countAfter(known, instant);
    if (atOrAfter === undefined || after === undefined) return [];
    return [{ updatedAt, atOrAfter, after, before: known.sample.totalCount - atOrAfter }];
  });
  const score = (pivot: Pivot) => (pivot.before > 0 ? 2 : 0) + (pivot.atOrAfter - pivot.after > 1 ? 1 : 0);
  return candidates.sort((a, b) => score(b) - score(a))[0];
}
