// Which loads of a copy the feed no longer serves, found from counts rather than a re-read. The feed's
// totalCount over a pickup-date range (with the sync's filters) is compared with the copy's own count of
// the range; where the feed counts fewer, the range is split in two and each half counted, down to ranges
// that one page holds, which are read by the key walk: the copy's loads of such a range that the read
// does not serve are suspects. Everything here assumes the copy has just caught up by delta, so a range
// where the feed counts more only means the copy is behind (a write since), never that something left.
import { feedWindowStart, lowerBoundMs, parseInstant, upperBoundMs } from '@loadfeed/spec';
import type { CallOptions, LoadfeedClient } from '../client.js';
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
  /** Reads the feed under these filters by the key walk; resolves to the loadNumbers served. */
  read(filters: SyncFilters): Promise<ReadonlySet<string>>;
  call: CallOptions;
}

export interface Suspects {
  loadNumbers: string[];
  /** Server time (epoch ms) by which every absence was seen: a later response settled past it confirms them. */
  seenAt: number;
  /** The first pickup instant compared: the window's start by the server's Date, plus a day. */
  comparedFrom: number;
}

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

export async function findSuspects(options: FindOptions): Promise<Suspects> {
  const { client, copy, pageSize, read, call } = options;
  const { pickupFrom: _from, pickupTo: _to, ...filters } = options.filters;
  const from = comparedFrom(client.serverNow());
  const suspects: string[] = [];
  let seenAt = client.serverNow();

  const count = async (params: SyncFilters) => (await client.listLoads({ ...filters, ...params, page: 1, pageSize: 1 }, call)).totalCount;
  const latest = await copy.latestPickup();
  const latestMs = latest === undefined ? undefined : Date.parse(latest);

  /** Reads a span by the key walk; the copy's loads of it that the read does not serve are suspects. */
  async function readSpan(span: PickupSpan, params: SyncFilters): Promise<void> {
    const served = await read({ ...filters, ...params });
    seenAt = Math.max(seenAt, client.serverNow());
    for (const loadNumber of await copy.listLoads(span)) if (!served.has(loadNumber)) suspects.push(loadNumber);
  }

  async function examine(range: PickupRange, feed: number, mine: number): Promise<void> {
    if (feed >= mine) return;
    const halves = feed <= pageSize || bisectingCosts(mine - feed, feed, pageSize) >= Math.ceil(feed / pageSize) ? undefined : splitRange(range, latestMs);
    if (halves === undefined) return readSpan(range, rangeParams(range));
    const counts = [await count(rangeParams(halves[0])), await count(rangeParams(halves[1]))] as const;
    // Counts that do not add up: the feed changed between them, or the server draws its lines elsewhere.
    if (counts[0] + counts[1] !== feed) return readSpan(range, rangeParams(range));
    const first = await copy.countLoads(halves[0]);
    await examine(halves[0], counts[0], first);
    await examine(halves[1], counts[1], mine - first);
  }

  const top = filteredRange(options.filters, from);
  let ranged = 0;
  if (top !== undefined) {
    ranged = await count(rangeParams(top));
    await examine(top, ranged, await copy.countLoads(top));
  }
  // Loads with no pickup date fall in no range (and a pickup filter serves none): the total less the
  // ranged counts less the window's first day is how many the feed serves; read in full where that differs.
  if (options.filters.pickupFrom === undefined && options.filters.pickupTo === undefined && top !== undefined) {
    const mine = await copy.countLoads('none');
    if (mine > 0) {
      const total = await count({});
      const firstDay = await count({ pickupTo: new Date(top.from - 1).toISOString() });
      if (total - ranged - firstDay < mine) await readSpan('none', {});
    }
  }
  return { loadNumbers: suspects, seenAt, comparedFrom: from };
}
