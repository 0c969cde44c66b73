// verifyCopy: is a copy complete? It walks the whole feed by the plain key walk (key-walk.ts: no
// stretches, nothing shared with a sync's run, so a fault in the sync's walk is not repeated here) and
// compares every field of every row with the copy, as of the copy's cursor: a row served with an updatedAt
// before the cursor must be in the copy and equal; a row at the cursor's own instant or after it is one the
// next sync brings (a sync stopped between two pages of one instant has saved that instant), not a fault.
// Rows in the copy that the feed no longer serves are told apart: aged out of the 12-month window (by the
// copy's own pickup date) is normal, anything else is not. A served row the copy holds marked removed
// differs in `removedAt`: readers of the copy's current loads do not see it. What it keeps of the feed is 8 bytes a served
// row (served-rows.ts), whatever the copy keeps to read itself.
import { DATE_TIME_LOAD_FIELDS, feedWindowStart, LOAD_FIELDS, type LoadField } from '@loadfeed/spec';
import type { LoadfeedClient, LoadRow } from './client.js';
import type { CopyReader } from './destination.js';
import { checkOptions, must, type Schema } from './options.js';
import { walkByKeyOnly } from './key-walk.js';
import { OUTCOME, servedRows, type Outcome } from './served-rows.js';
import type { SyncProgress } from './sync.js';
import type { WaitEvent } from './transport.js';

export interface VerifyOptions {
  client: LoadfeedClient;
  copy: CopyReader;
  /** Rows per request; default: the largest page the deployment serves, as syncLoads asks. */
  pageSize?: number;
  signal?: AbortSignal;
  onProgress?(progress: SyncProgress): void;
  onWait?(event: WaitEvent): void;
  /** How many loadNumbers each list of the report shows (default 10). */
  sampleSize?: number;
}

/** A row of the copy that differs from the feed, and the fields that differ (`removedAt`: the copy marks removed a load the feed serves). */
export interface Difference {
  loadNumber: string;
  fields: (LoadField | 'removedAt')[];
}

export interface VerifyReport {
  /** The copy's cursor: the comparison is as of this instant. */
  cursor: string | undefined;
  /** Rows the feed serves now. */
  served: number;
  /** Served rows the copy holds, every field equal. */
  equal: number;
  /** Served rows before the cursor's instant that are not in the copy. */
  missing: number;
  /** Served rows before the cursor's instant whose copy differs in some field, or holds them marked removed (field `removedAt`). */
  differing: number;
  /** Served rows at the cursor's instant or after it that the copy lacks or holds in another version: the next sync brings them (not a fault). */
  newer: number;
  /** Rows in the copy the feed no longer serves, whose pickup date is before the 12-month window: aged out (not a fault). */
  agedOut: number;
  /** Rows in the copy the feed does not serve and the window does not explain. */
  extra: number;
  /** Rows in the copy the feed does not serve that a sync marked removed (not a fault). */
  removed: number;
  /** True when every served row before the cursor's instant is in the copy and equal, and the copy holds nothing unexplained. */
  complete: boolean;
  /** The first loadNumbers (in loadNumber order) of each kind. */
  samples: { missing: string[]; differing: Difference[]; newer: string[]; agedOut: string[]; extra: string[]; removed: string[] };
  /** HTTP requests the walk sent, retries included. */
  requests: number;
}

const VERIFY_OPTIONS: Schema = {
  client: must.methods('listLoads', 'quota', 'stats', 'serverNow'),
  copy: must.methods('loadCursor', 'readRows', 'loadNumbers'),
  pageSize: must.integer(1),
  signal: must.abortSignal,
  onProgress: must.function,
  onWait: must.function,
  sampleSize: must.integer(0),
};

const DECIMAL = /^(-?)0*(\d+?)(?:\.(\d*?)0*)?$/;

/** A decimal string by value: "0012.50" and "12.5" are one amount, as numeric stores them. */
function decimalValue(text: string): string {
  const match = DECIMAL.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction] = match;
  const digits = fraction ? `${whole}.${fraction}` : whole!;
  return digits === '0' ? '0' : `${sign}${digits}`;
}

const DATE_TIME_FIELDS = new Set<LoadField>(DATE_TIME_LOAD_FIELDS);
const isDateTime = (field: LoadField) => DATE_TIME_FIELDS.has(field);

/** Equal values of one field: date-times as instants, decimals by value, everything else exactly. */
function sameValue(field: LoadField, served: unknown, copied: unknown): boolean {
  // The common case first: a copy that keeps the served text (SQLite, NDJSON) needs no parsing.
  if (served === copied) return true;
  if (served === null || served === undefined || copied === null || copied === undefined) return (served ?? null) === (copied ?? null);
  if (typeof served !== 'string' || typeof copied !== 'string') return served === copied;
  if (isDateTime(field)) return Date.parse(served) === Date.parse(copied);
  if (field === 'miles' || field === 'totalCost') return decimalValue(served) === decimalValue(copied);
  return served === copied;
}

const NO_FIELDS: Difference['fields'] = [];
const MARKED_REMOVED: Difference['fields'] = ['removedAt'];

/** The fields in which the copy differs; for an equal row (nearly every row) nothing is allocated. */
function differingFields(served: LoadRow, copied: LoadRow, markedRemoved: boolean): Difference['fields'] {
  let fields = markedRemoved ? MARKED_REMOVED : NO_FIELDS;
  for (let index = 0; index < LOAD_FIELDS.length; index += 1) {
    const field = LOAD_FIELDS[index]!;
    if (sameValue(field, served[field], copied[field])) continue;
    if (fields === NO_FIELDS || fields === MARKED_REMOVED) fields = [...fields];
    fields.push(field);
  }
  return fields;
}

/** The first `size` items in order, kept as they come: memory bounded by `size`, not by how many come. */
function firstOf<T>(size: number, key: (item: T) => string) {
  let items: T[] = [];
  const order = (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return {
    add(item: T): void {
      items.push(item);
      if (items.length > 4 * size + 16) items = items.sort(order).slice(0, size);
    },
    list: (keep: (item: T) => boolean) => items.filter(keep).sort(order).slice(0, size),
  };
}

/** Compares the copy with what the API serves now; see VerifyReport. */
export async function verifyCopy(options: VerifyOptions): Promise<VerifyReport> {
  checkOptions('verifyCopy', options, VERIFY_OPTIONS, ['client', 'copy']);
  const { client, copy } = options;
  const sampleSize = options.sampleSize ?? 10;
  const cursor = await copy.loadCursor();
  const cursorMs = cursor === undefined ? Number.POSITIVE_INFINITY : Date.parse(cursor);
  const served = servedRows();
  const samples = {
    missing: firstOf<string>(sampleSize, (loadNumber) => loadNumber),
    newer: firstOf<string>(sampleSize, (loadNumber) => loadNumber),
    differing: firstOf<Difference>(sampleSize, (difference) => difference.loadNumber),
  };
  const startStats = client.stats();
  let pages = 0;
  let rowsSeen = 0;
  const call = { ...(options.signal ? { signal: options.signal } : {}), ...(options.onWait ? { onWait: options.onWait } : {}) };

  for await (const { rows, page } of walkByKeyOnly(client, { ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }), call })) {
    pages += 1;
    const loadNumbers = rows.map((row) => row.loadNumber);
    const [copiedRows, marked] = rows.length === 0 ? [[], undefined] : await Promise.all([copy.readRows(loadNumbers), copy.removals?.removedAmong(loadNumbers)]);
    const copied = new Map(copiedRows.map((row) => [row.loadNumber, row]));
    for (const row of rows) {
      const mine = copied.get(row.loadNumber);
      const at = Date.parse(row.updatedAt);
      const fields = mine === undefined ? undefined : differingFields(row, mine, marked?.has(row.loadNumber) === true);
      let outcome: Outcome;
      if (fields !== undefined && fields.length === 0) outcome = OUTCOME.equal;
      // At the cursor's instant or after it: the next sync's to bring, whatever the copy holds.
      else if (at >= cursorMs) outcome = OUTCOME.newer;
      else outcome = fields === undefined ? OUTCOME.missing : OUTCOME.differing;
      served.add(row.loadNumber, outcome);
      if (outcome === OUTCOME.missing) samples.missing.add(row.loadNumber);
      else if (outcome === OUTCOME.newer) samples.newer.add(row.loadNumber);
      else if (outcome === OUTCOME.differing) samples.differing.add({ loadNumber: row.loadNumber, fields: fields! });
    }
    rowsSeen += rows.length;
    if (options.onProgress) {
      const quota = client.quota();
      options.onProgress({
        pages,
        rows: rowsSeen,
        totalCount: rowsSeen + Math.max(0, page.totalCount - page.data.length),
        requests: client.stats().requests - startStats.requests,
        quotaRemaining: quota.remaining,
        nextRequestAt: quota.nextRequestAt,
        eta: undefined,
      });
    }
  }

  // A row changed during the walk is served twice; its last version (the newer) counts.
  const tally = served.settle();
  const windowStart = feedWindowStart(new Date(client.serverNow())).getTime();
  const agedOut = firstOf<string>(sampleSize, (loadNumber) => loadNumber);
  const extra = firstOf<string>(sampleSize, (loadNumber) => loadNumber);
  const removed = firstOf<string>(sampleSize, (loadNumber) => loadNumber);
  let agedOutCount = 0;
  let extraCount = 0;
  let removedCount = 0;
  for await (const batch of copy.loadNumbers()) {
    const unserved = batch.filter((loadNumber) => served.outcomeOf(loadNumber) === undefined);
    if (unserved.length === 0) continue;
    const marked = (await copy.removals?.removedAmong(unserved)) ?? new Set<string>();
    for (const row of await copy.readRows(unserved)) {
      if (marked.has(row.loadNumber)) {
        removedCount += 1;
        removed.add(row.loadNumber);
        continue;
      }
      const pickup = row.scheduledPickupDate === null ? Number.NaN : Date.parse(row.scheduledPickupDate);
      // A load with no pickup date, or one before the window, is outside the feed (DECISIONS.md): aged out.
      if (Number.isNaN(pickup) || pickup < windowStart) {
        agedOutCount += 1;
        agedOut.add(row.loadNumber);
      } else {
        extraCount += 1;
        extra.add(row.loadNumber);
      }
    }
  }

  const finally_ = (outcome: Outcome) => (loadNumber: string) => served.outcomeOf(loadNumber) === outcome;
  const everything = () => true;
  return {
    cursor,
    served: tally.served,
    equal: tally.equal,
    missing: tally.missing,
    differing: tally.differing,
    newer: tally.newer,
    agedOut: agedOutCount,
    extra: extraCount,
    removed: removedCount,
    complete: tally.missing === 0 && tally.differing === 0 && extraCount === 0,
    samples: {
      missing: samples.missing.list(finally_(OUTCOME.missing)),
      differing: samples.differing.list((difference) => finally_(OUTCOME.differing)(difference.loadNumber)),
      newer: samples.newer.list(finally_(OUTCOME.newer)),
      agedOut: agedOut.list(everything),
      extra: extra.list(everything),
      removed: removed.list(everything),
    },
    requests: client.stats().requests - startStats.requests,
  };
}
