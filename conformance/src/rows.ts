// Small facts about rows that several checks compute: the 12-month window, dates, frequencies.
import { feedWindowStart, type Load } from '@loadfeed/spec';

const DAY_MS = 86_400_000;

/** The earliest scheduled pickup inside the feed (SPEC §1, DECISIONS.md's day), with a day's slack for a deployment that draws the line in its own time zone. */
export function windowStart(now: number): number {
  return feedWindowStart(new Date(now)).getTime() - DAY_MS;
}

export function time(value: string | null): number | undefined {
  if (value === null) return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** The values of a field, most frequent first (ties in first-seen order), nulls left out. */
export function byFrequency<T extends string>(rows: readonly Load[], pick: (row: Load) => T | null): T[] {
  const counts = new Map<T, number>();
  for (const row of rows) {
    const value = pick(row);
    if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([value]) => value);
}

export function loadNumbers(rows: readonly Load[]): string[] {
  return rows.map((row) => row.loadNumber);
}

/** The date part (YYYY-MM-DD) of an ISO date-time. */
export function dayOf(dateTime: string): string {
  return dateTime.slice(0, 10);
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

export function list(values: readonly unknown[], max = 8): string {
  const shown = values.slice(0, max).map((value) => JSON.stringify(value));
  return values.length > max ? `${shown.join(', ')} … (${values.length} in all)` : shown.join(', ') || 'none';
}
