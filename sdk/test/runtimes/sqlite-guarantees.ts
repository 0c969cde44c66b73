// What programs/sqlite-guarantees.mjs must find under each built-in SQLite: the outcomes that
// test/destinations/ (files, locks, removals, suspects) expects of the SQLite destination on better-sqlite3.
import type { Load } from '@loadfeed/spec';
import { expect } from 'vitest';
import { row } from '../destinations/rows.js';

export const [T0, T1, T2, T3] = ['2026-11-22T00:00:00.000Z', '2026-11-22T01:00:00.000Z', '2026-11-22T02:00:00.000Z', '2026-11-22T03:00:00.000Z'] as const;

type Marked = Load & { removedAt: string | null; suspectedAt: string | null };
interface Contents {
  loads: Marked[];
  cursor: string | undefined;
}
export interface SqliteGuarantees {
  rollback: { threw: boolean; afterFailure: Contents; afterRetry: Contents };
  olderRow: Contents;
  secondWriter: { refused: string | undefined; cursor: string | undefined; lockLeft: boolean };
  busyWriter: { error: string | undefined; begunWhileHeld: boolean; endedAfterRelease: boolean; contents: Contents };
  removals: {
    counted: { all: number; week: number; none: number; latest: string | undefined };
    afterMark: { all: number; listed: string[]; latest: string | undefined; removedAmong: string[] };
    suspects: { loadNumber: string; seenAt: string }[];
    marked: Contents;
    afterWrite: { removedAmong: string[]; suspects: { loadNumber: string; seenAt: string }[] };
    final: Contents;
  };
  realColumn: { refused: string | undefined; tables: string[]; lockLeft: boolean };
  oldLayout: { cursor: string | undefined; hasRemovals: boolean; contents: Contents };
}

/** A row as the table holds it: the Load, then its removal marks. */
const stored = (load: Load, marks: { removedAt?: string; suspectedAt?: string } = {}): Marked => ({ ...load, removedAt: marks.removedAt ?? null, suspectedAt: marks.suspectedAt ?? null });
const bySeenLoad = (suspects: { loadNumber: string; seenAt: string }[]) => [...suspects].sort((a, b) => a.loadNumber.localeCompare(b.loadNumber));
const WEEK_OUT = '2026-12-05T00:00:00.000Z';

export function expectSqliteGuarantees(runtime: string, found: SqliteGuarantees): void {
  const say = (check: string) => `${runtime}: ${check}`;

  // A page whose write fails part-way leaves neither its rows nor its cursor; the page written again lands whole.
  expect(found.rollback.threw, say('rollback')).toBe(true);
  expect(found.rollback.afterFailure, say('rollback')).toEqual({ loads: [stored(row(1, T1)), stored(row(2, T1))], cursor: T1 });
  expect(found.rollback.afterRetry, say('rollback')).toEqual({ loads: [stored(row(1, T2, { status: 'Delivered' })), stored(row(2, T1)), stored(row(3, T2))], cursor: T2 });

  // An older version of a row never replaces a newer one, and the cursor never moves back.
  expect(found.olderRow, say('older row')).toEqual({ loads: [stored(row(1, T2, { status: 'Delivered' })), stored(row(2, T1))], cursor: T2 });

  // One writer: a second is refused by the lock file while the first writes on; no lock is left behind.
  expect(found.secondWriter.refused, say('second writer')).toMatch(/^another loadfeed sync is writing \S+held\.db now \(process \d+, \S+held\.db\.lock\); try again when it ends$/);
  expect(found.secondWriter, say('second writer')).toMatchObject({ cursor: T1, lockLeft: false });

  // Another connection's write lock is waited for (busy_timeout), not met with SQLITE_BUSY.
  expect(found.busyWriter.error, say('busy writer')).toBeUndefined();
  expect(found.busyWriter, say('busy writer')).toMatchObject({ begunWhileHeld: true, endedAfterRelease: true });
  expect(found.busyWriter.contents, say('busy writer')).toEqual({ loads: [stored(row(1, T1)), stored(row(2, T3))], cursor: T3 });

  // Removal detection's side of the copy: counts over pickup spans skip marked loads; marks, suspects,
  // a write that unmarks the load and clears its suspicion, and a delete.
  const { removals } = found;
  expect(removals.counted, say('removals')).toEqual({ all: 3, week: 2, none: 1, latest: WEEK_OUT });
  expect(removals.afterMark, say('removals')).toEqual({ all: 1, listed: ['L1'], latest: '2026-11-29T00:00:00.000Z', removedAmong: ['L2', 'L4'] });
  expect(bySeenLoad(removals.suspects), say('suspects')).toEqual([{ loadNumber: 'L1', seenAt: T2 }, { loadNumber: 'L3', seenAt: T2 }]);
  expect(removals.marked, say('removals')).toEqual({
    loads: [
      stored(row(1, T1), { suspectedAt: T2 }),
      stored(row(2, T1), { removedAt: T2 }),
      stored(row(3, T1, { scheduledPickupDate: null }), { suspectedAt: T2 }),
      stored(row(4, T1, { scheduledPickupDate: WEEK_OUT }), { removedAt: T2 }),
    ],
    cursor: T1,
  });
  expect(removals.afterWrite, say('removals')).toEqual({ removedAmong: ['L4'], suspects: [{ loadNumber: 'L1', seenAt: T2 }] });
  expect(removals.final, say('removals')).toEqual({
    loads: [stored(row(1, T1), { suspectedAt: T2 }), stored(row(2, T3)), stored(row(3, T3, { scheduledPickupDate: null }))],
    cursor: T3,
  });

  // A REAL decimal column in an existing table is refused, naming it, before anything is created or locked for good.
  expect(found.realColumn.refused, say('REAL column')).toMatch(/^the table loads cannot hold the copy: column "miles" is REAL, which changes the API's text \(1234\.50 becomes 1234\.5\); fix: /);
  expect(found.realColumn, say('REAL column')).toMatchObject({ tables: ['loads'], lockLeft: false });

  // A copy made before removals gains removedAt and suspectedAt, its rows and cursor kept.
  expect(found.oldLayout, say('old layout')).toEqual({
    cursor: T1,
    hasRemovals: true,
    contents: { loads: [stored(row(1, T1)), stored(row(2, T2), { removedAt: T2 })], cursor: T2 },
  });
}
