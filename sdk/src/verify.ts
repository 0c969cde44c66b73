// verifyCopy: is a copy complete? It walks the whole feed the way syncLoads does (the key walk, at the
// fewest requests) and compares every field of every row with the copy, as of the copy's cursor: a row
// served with an updatedAt at or before the cursor must be in the copy and equal; a row changed after it
// is one the next sync brings, not a fault. Rows in the copy that the feed no longer serves are told
// apart: aged out of the 12-month window (by the copy's own pickup date) is normal, anything else is not.
import { DATE_TIME_LOAD_FIELDS, feedWindowStart, LOAD_FIELDS, type LoadField } from '@loadfeed/spec';
import type { LoadfeedClient, LoadRow } from './client.js';
import type { CopyReader } from './destination.js';
import { checkOptions, must, type Schema } from './options.js';
import { syncLoads, type SyncProgress } from './sync.js';
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

/** A row of the copy that differs from the feed, and the fields that differ. */
export interface Difference {
  loadNumber: string;
  fields: LoadField[];
}

export interface VerifyReport {
  /** The copy's cursor: the comparison is as of this instant. */
  cursor: string | undefined;
  /** Rows the feed serves now. */
  served: number;
  /** Served rows at or before the cursor that the copy holds, every field equal. */
  equal: number;
  /** Served rows at or before the cursor that are not in the copy. */
  missing: number;
  /** Served rows at or before the cursor whose copy differs in some field. */
  differing: number;
  /** Served rows changed after the cursor: the next sync brings them (not a fault). */
  newer: number;
  /** Rows in the copy the feed no longer serves, whose pickup date is before the 12-month window: aged out (not a fault). */
  agedOut: number;
  /** Rows in the copy the feed does not serve and the window does not explain. */
  extra: number;
  /** Rows in the copy the feed does not serve that a sync marked removed (not a fault). */
  removed: number;
  /** True when every served row at or before the cursor is in the copy and equal, and the copy holds nothing unexplained. */
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

const isDateTime = (field: LoadField) => DATE_TIME_LOAD_FIELDS.includes(field);

/** Equal values of one field: date-times as instants, decimals by value, everything else exactly. */
function sameValue(field: LoadField, served: unknown, copied: unknown): boolean {
  if (served === null || served === undefined || copied === null || copied === undefined) return (served ?? null) === (copied ?? null);
  if (typeof served !== 'string' || typeof copied !== 'string') return served === copied;
  if (isDateTime(field)) return Date.parse(served) === Date.parse(copied);
  if (field === 'miles' || field === 'totalCost') return decimalValue(served) === decimalValue(copied);
  return served === copied;
}

const differingFields = (served: LoadRow, copied: LoadRow) => LOAD_FIELDS.filter((field) => !sameValue(field, served[field], copied[field]));

type Outcome = 'equal' | 'missing' | 'newer' | LoadField[];

/** Compares the copy with what the API serves now; see VerifyReport. */
export async function verifyCopy(options: VerifyOptions): Promise<VerifyReport> {
  checkOptions('verifyCopy', options, VERIFY_OPTIONS, ['client', 'copy']);
  const { client, copy } = options;
  const sampleSize = options.sampleSize ?? 10;
  const cursor = await copy.loadCursor();
  const cursorMs = cursor === undefined ? Number.POSITIVE_INFINITY : Date.parse(cursor);
  // One outcome per served loadNumber; a row changed during the walk comes again, and its last version counts.
  const outcomes = new Map<string, Outcome>();

  const summary = await syncLoads({
    client,
    overlapMs: 0,
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
    async upsert(rows) {
      const copied = new Map((await copy.readRows(rows.map((row) => row.loadNumber))).map((row) => [row.loadNumber, row]));
      for (const row of rows) {
        const mine = copied.get(row.loadNumber);
        if (Date.parse(row.updatedAt) > cursorMs) outcomes.set(row.loadNumber, 'newer');
        else if (!mine) outcomes.set(row.loadNumber, 'missing');
        else {
          const fields = differingFields(row, mine);
          outcomes.set(row.loadNumber, fields.length === 0 ? 'equal' : fields);
        }
      }
    },
  });

  const windowStart = feedWindowStart(new Date(client.serverNow())).getTime();
  const agedOut: string[] = [];
  const extra: string[] = [];
  const removed: string[] = [];
  for await (const batch of copy.loadNumbers()) {
    const unserved = batch.filter((loadNumber) => !outcomes.has(loadNumber));
    if (unserved.length === 0) continue;
    const marked = (await copy.removals?.removedAmong(unserved)) ?? new Set<string>();
    for (const row of await copy.readRows(unserved)) {
      if (marked.has(row.loadNumber)) {
        removed.push(row.loadNumber);
        continue;
      }
      const pickup = row.scheduledPickupDate === null ? Number.NaN : Date.parse(row.scheduledPickupDate);
      // A load with no pickup date, or one before the window, is outside the feed (DECISIONS.md): aged out.
      (Number.isNaN(pickup) || pickup < windowStart ? agedOut : extra).push(row.loadNumber);
    }
  }

  const missing: string[] = [];
  const newer: string[] = [];
  const differing: Difference[] = [];
  let equal = 0;
  for (const [loadNumber, outcome] of outcomes) {
    if (outcome === 'equal') equal += 1;
    else if (outcome === 'missing') missing.push(loadNumber);
    else if (outcome === 'newer') newer.push(loadNumber);
    else differing.push({ loadNumber, fields: outcome });
  }
  const first = (loadNumbers: string[]) => loadNumbers.sort().slice(0, sampleSize);
  return {
    cursor,
    served: outcomes.size,
    equal,
    missing: missing.length,
    differing: differing.length,
    newer: newer.length,
    agedOut: agedOut.length,
    extra: extra.length,
    removed: removed.length,
    complete: missing.length === 0 && differing.length === 0 && extra.length === 0,
    samples: {
      missing: first(missing),
      differing: differing.sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : a.loadNumber > b.loadNumber ? 1 : 0)).slice(0, sampleSize),
      newer: first(newer),
      agedOut: first(agedOut),
      extra: first(extra),
      removed: first(removed),
    },
    requests: summary.requests,
  };
}
