// How a copy and the feed differ, found from counts rather than a re-read. The feed's totalCount over a
// pickup-date range (with the sync's filters) is compared with the copy's own count of the range; where
// they differ, the range is split in two and each half counted, down to ranges that one page holds,
// which are read by the key walk: the copy's loads of such a range that the read does not serve are
// suspects, and the rows it serves that the copy does not hold are written to it. Right after the walk a
// range where the feed counts more may only mean that the copy is behind (a write since), so it is
// first only noted (`ahead`); once the copy has caught up by delta, `settleAhead` counts it again, and a
// range that still counts more holds rows the walk missed (a deployment that stamps rows behind pages
// already read): it is read the same way, so the copy ends exact.
import { feedWindowStart, lowerBoundMs, parseInstant, upperBoundMs } from '@loadfeed/spec';
import type { CallOptions, ListLoadsParams, LoadfeedClient } from '../client.js';
import type { SyncFilters } from '../sync.js';
import type { PickupRange, PickupSpan, RemovalCopy } from './copy.js';
import { DAY_MS, rangeParams, splitRange } from './ranges.js';

export interface FindOptions {
  client: LoadfeedClient;
  copy: RemovalCopy;
  /** The sync's filters: every count and read carries them. */
  filters: SyncFilters;
  /** Rows a page of the deployment holds: a range the feed counts no more than this is read, not split. */
  pageSize: number;
  /**
   * Reads the feed under these filters by the key walk, writing to the copy the rows served whose
   * loadNumber is not in `held`; resolves to the loadNumbers served.
   */
  read(filters: SyncFilters, held: ReadonlySet<string>): Promise<ReadonlySet<string>>;
  /** The copy's cursor now: rows stamped after it may be writes since the walk, not rows it missed. */
  cursor(): string | undefined;
  call: CallOptions;
  /** The most of the copy's loads one read compares at once (READ_PART_LOADS unless given). */
  readPartLoads?: number;
}

export interface Comparison {
  /** LoadNumbers the copy holds that a read of their range did not serve. */
  loadNumbers: string[];
  /** Server time (epoch ms) by which every absence was seen: a later response settled past it confirms them. */
  seenAt: number;
  /** The first pickup instant compared: the window's start by the server's Date, plus a day. */
  comparedFrom: number;
  /** Spans where the feed counted more than the copy, to count again once the copy has caught up. */
  ahead: PickupSpan[];
  /** Of the loadNumbers watched (earlier suspects), those a read served. */
  served: Set<string>;
}

/**
 * The most loads of the copy one read compares at once: a larger range is read in parts the copy's own
 * counts split, so that the loadNumbers held in memory stay bounded (250,000 of them are some 20 MB). Each
 * part's last page is not full and costs a request more than one read of the whole, so a part is large:
 * a customer of a few hundred thousand loads is read in one, at a full read and no more, and one of 1.5M
 * in six, six requests more than a full read of 15,000 pages.
 */
export const READ_PART_LOADS = 250_000;

/** Slack on the server's time, for the clocks that draw the window: the instance's, the database's, ours, Date's whole seconds. */
const CLOCK_SLACK_MS = 60 * 60_000;

/** The first pickup instant a comparison may judge: a whole day after the window's start, with slack for clocks. */
export function comparedFrom(serverNow: number): number {
  return feedWindowStart(new Date(serverNow + CLOCK_SLACK_MS)).getTime() + DAY_MS;
}

/** The pickup range the sync's filters allow from `from` on, or undefined when they allow none. */
function filteredRange(filters: SyncFilters, from: number): PickupRange | undefined {
  const lower = filters.pickupFrom === undefined ? undefined : parseInstant(filters.pickupFrom, { allowDate: true });
  const upper = filters.pickupTo === undefined ? undefined : parseInstant(filters.pickupTo, { allowDate: true });
  const range: PickupRange = { from: Math.max(from, lower ? lowerBoundMs(lower) : from), before: upper ? upperBoundMs(upper) + 1 : undefined };
  return range.before !== undefined && range.before <= range.from ? undefined : range;
}

/**
 * The requests bisecting a range is expected to cost, with `missing` loads spread over `feed` rows: two
 * counts for each range of each level that holds one, and the page that ends each. Where that is no
 * cheaper than reading the range, it is read: so a sync never costs much more than a full read.
 */
export function bisectingCosts(missing: number, feed: number, pageSize: number): number {
  const pages = Math.ceil(feed / pageSize);
  let cost = Math.min(missing, pages);
  for (let level = 1; 2 ** (level - 1) < pages; level += 1) cost += 2 * Math.min(missing, 2 ** level);
  return cost;
}

/** Which differences a pass pursues: right after the walk only where the feed counts fewer; after the catch-up, any. */
type Pursuit = 'fewer' | 'any';

/** The comparison's requests and findings, shared by the pass after the walk and the one after the catch-up. */
function comparer(options: FindOptions, watched: ReadonlySet<string> = new Set()) {
  const { client, copy, pageSize, read, call, readPartLoads = READ_PART_LOADS } = options;
  const { pickupFrom: _from, pickupTo: _to, ...filters } = options.filters;
  const from = comparedFrom(client.serverNow());
  const top = filteredRange(options.filters, from);
  // Loads with no pickup date fall in no range, and a pickup filter serves none of them.
  const comparesNone = options.filters.pickupFrom === undefined && options.filters.pickupTo === undefined && top !== undefined;
  const found: Comparison = { loadNumbers: [], seenAt: client.serverNow(), comparedFrom: from, ahead: [], served: new Set() };
  let latestMs: number | undefined;

  const count = async (params: Omit<ListLoadsParams, 'page' | 'pageSize'>) => (await client.listLoads({ ...filters, ...params, page: 1, pageSize: 1 }, call)).totalCount;

  /**
   * Whether the feed counting more than the copy in `range` is only writes stamped after the copy's
   * cursor (made since the walk): then nothing stamped at or before it is missing, unless as many of the
   * copy's rows there were updated since (the next run counts again).
   */
  async function onlyWritesSince(range: PickupRange, feed: number, mine: number): Promise<boolean> {
    const cursor = options.cursor();
    if (cursor === undefined) return false;
    const since = await count({ ...rangeParams(range), updatedSince: new Date(Date.parse(cursor) + 1).toISOString() });
    return feed - since <= mine;
  }

  /** How many loads with no pickup date the feed serves: the total less the ranged count less the window's first day. */
  async function countNone(ranged: number): Promise<number> {
    const total = await count({});
    const firstDay = await count({ pickupTo: new Date(top!.from - 1).toISOString() });
    return total - ranged - firstDay;
  }

  /** Reads a span by the key walk: the copy's loads of it that the read does not serve are suspects. */
  async function readSpan(span: PickupSpan, params: SyncFilters): Promise<void> {
    const held = new Set(await copy.listLoads(span));
    const served = await read({ ...filters, ...params }, held);
    found.seenAt = Math.max(found.seenAt, client.serverNow());
    for (const loadNumber of held) if (!served.has(loadNumber)) found.loadNumbers.push(loadNumber);
    for (const loadNumber of watched) if (served.has(loadNumber)) found.served.add(loadNumber);
  }

  /** Reads a range, in parts of at most readPartLoads of the copy's loads, split where the copy's counts say. */
  async function readRange(range: PickupRange, mine: number): Promise<void> {
    const halves = mine > readPartLoads ? splitRange(range, latestMs) : undefined;
    if (halves === undefined) return readSpan(range, rangeParams(range));
    const first = await copy.countLoads(halves[0]);
    await readRange(halves[0], first);
    await readRange(halves[1], mine - first);
  }

  async function examine(range: PickupRange, feed: number, mine: number, pursuit: Pursuit): Promise<void> {
    if (feed === mine) return;
    if (feed > mine && pursuit === 'fewer') return void found.ahead.push(range);
    const differing = Math.abs(mine - feed);
    const halves = feed <= pageSize || bisectingCosts(differing, feed, pageSize) >= Math.ceil(feed / pageSize) ? undefined : splitRange(range, latestMs);
    if (halves === undefined) return readRange(range, mine);
    const counts = [await count(rangeParams(halves[0])), await count(rangeParams(halves[1]))] as const;
    // Counts that do not add up: the feed changed between them, or the server draws its lines elsewhere.
    if (counts[0] + counts[1] !== feed) return readRange(range, mine);
    const first = await copy.countLoads(halves[0]);
    await examine(halves[0], counts[0], first, pursuit);
    await examine(halves[1], counts[1], mine - first, pursuit);
  }

  async function examineNone(ranged: number, pursuit: Pursuit): Promise<void> {
    const mine = await copy.countLoads('none');
    if (mine === 0) return;
    const feed = await countNone(ranged);
    if (feed > mine && pursuit === 'fewer') found.ahead.push('none');
    else if (feed !== mine) await readSpan('none', {});
  }

  return {
    found,
    async compare(pursuit: Pursuit, spans: readonly PickupSpan[] | undefined): Promise<void> {
      if (top === undefined) return;
      const latest = await copy.latestPickup();
      latestMs = latest === undefined ? undefined : Date.parse(latest);
      const ranges = spans === undefined ? [top] : spans.filter((span): span is PickupRange => span !== 'none');
      let ranged: number | undefined;
      for (const range of ranges) {
        const feed = await count(rangeParams(range));
        if (range.from === top.from && range.before === top.before) ranged = feed;
        const mine = await copy.countLoads(range);
        if (feed > mine && (await onlyWritesSince(range, feed, mine))) continue;
        await examine(range, feed, mine, pursuit);
      }
      if (comparesNone && (spans === undefined || spans.includes('none'))) await examineNone(ranged ?? (await count(rangeParams(top))), pursuit);
    },
  };
}

/** Compares the copy with the feed right after the walk: suspects where the feed counts fewer, spans where it counts more. */
export async function compareWithFeed(options: FindOptions): Promise<Comparison> {
  const comparing = comparer(options);
  await comparing.compare('fewer', undefined);
  return comparing.found;
}

/**
 * Once the copy has caught up by delta: counts the spans where the feed counted more again, and reads
 * those that still differ, writing what the copy lacks. Resolves to the suspects found on the way, and
 * which of `watched` its reads served.
 */
export async function settleAhead(options: FindOptions, ahead: readonly PickupSpan[], watched: ReadonlySet<string>): Promise<Comparison> {
  const comparing = comparer(options, watched);
  if (ahead.length > 0) await comparing.compare('any', ahead);
  return comparing.found;
}
