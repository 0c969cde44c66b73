// The mock's loads: kept in the API's order (updatedAt, then insertion id) with the rules the real
// database keeps — a write that changes no value leaves updatedAt alone, and one write stamps every row
// it inserts or changes with one updatedAt, later than any before it.
import { LOAD_FIELDS, NULLABLE_LOAD_FIELDS, type Load, type LoadInput } from '@loadfeed/spec';
import { checkLoad } from '@loadfeed/spec/validate';

export interface WriteSummary {
  inserted: number;
  changed: number;
  unchanged: number;
}

export interface StoredLoad {
  readonly id: number;
  readonly updatedAtMs: number;
  readonly load: Load;
}

export interface Dataset {
  /** Upserts by loadNumber as ONE write: every row it inserts or changes gets one new updatedAt. */
  upsert(inputs: readonly LoadInput[]): WriteSummary;
  /** Deletes rows (as an operator writing the table directly would). */
  remove(loadNumbers: readonly string[]): number;
  get(loadNumber: string): Load | undefined;
  /** Every row in the API's order, including those outside the 12-month window. */
  ordered(): readonly StoredLoad[];
  /** Epoch ms of the latest write's updatedAt (-Infinity before any): every later write is stamped after it. */
  readonly latestStamp: number;
  /** Changes on every write, so derived views know when to rebuild. */
  readonly version: number;
  readonly size: number;
}

function completeLoad(input: LoadInput, updatedAt: string): Load {
  const load = { ...input } as Record<string, unknown>;
  for (const field of NULLABLE_LOAD_FIELDS) if (load[field] === undefined) load[field] = null;
  load.updatedAt = updatedAt;
  const ordered: Record<string, unknown> = {};
  for (const field of LOAD_FIELDS) ordered[field] = load[field];
  // The mock refuses what the server's import would refuse, so it never serves a row that breaks the contract.
  const violations = checkLoad(ordered);
  if (violations.length > 0) {
    throw new TypeError(`load ${JSON.stringify(input.loadNumber)} breaks the contract: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`);
  }
  return ordered as Load;
}

function sameValues(a: Load, b: Load): boolean {
  return LOAD_FIELDS.every((field) => field === 'updatedAt' || a[field] === b[field]);
}

export function createDataset(now: () => number): Dataset {
  let rows: StoredLoad[] = [];
  const byNumber = new Map<string, StoredLoad>();
  let nextId = 1;
  let lastStamp = Number.NEGATIVE_INFINITY;
  let version = 0;

  return {
    upsert(inputs) {
      // A write is later than every write before it, as a database's commit order makes it.
      const stamp = Math.max(now(), lastStamp + 1);
      const updatedAt = new Date(stamp).toISOString();
      const summary: WriteSummary = { inserted: 0, changed: 0, unchanged: 0 };
      const moved = new Set<number>();
      const appended = new Map<string, StoredLoad>();
      for (const input of inputs) {
        const existing = byNumber.get(input.loadNumber);
        const load = completeLoad(input, updatedAt);
        if (existing && sameValues(existing.load, load)) {
          summary.unchanged += 1;
          continue;
        }
        if (existing) {
          summary.changed += 1;
          moved.add(existing.id);
        } else {
          summary.inserted += 1;
        }
        const stored: StoredLoad = { id: existing?.id ?? nextId++, updatedAtMs: stamp, load };
        byNumber.set(load.loadNumber, stored);
        appended.set(load.loadNumber, stored);
      }
      if (appended.size === 0) return summary;
      lastStamp = stamp;
      version += 1;
      if (moved.size > 0) rows = rows.filter((row) => !moved.has(row.id));
      for (const row of [...appended.values()].sort((a, b) => a.id - b.id)) rows.push(row);
      return summary;
    },
    remove(loadNumbers) {
      const gone = new Set(loadNumbers.filter((loadNumber) => byNumber.delete(loadNumber)));
      if (gone.size === 0) return 0;
      rows = rows.filter((row) => !gone.has(row.load.loadNumber));
      version += 1;
      return gone.size;
    },
    get: (loadNumber) => byNumber.get(loadNumber)?.load,
    ordered: () => rows,
    get latestStamp() {
      return lastStamp;
    },
    get version() {
      return version;
    },
    get size() {
      return rows.length;
    },
  };
}
