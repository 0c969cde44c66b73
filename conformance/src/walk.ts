// The pagination walk: a scope of a few rows, walked at a small page size, beside one page that holds the
// whole scope in order (the reference). The scope is chosen from what the sample and the tail show, so that
// the walk always reaches its last page within the budget: the whole feed when it is small, else the newest
// rows (an updatedSince slice), else, when a bulk load stamped them all with one instant, a narrow filter
// (one day of a date range, one value of an exact filter: LIST_LOADS_FILTERS) whose size one request tells.
import { filtersOfKind, type Load, type LoadField } from '@loadfeed/spec';
import type { Query, Sender } from './client.js';
import { isPage, TEST_PAGE_SIZE_MAX, type Sample, type Tail } from './dataset.js';
import type { Exchange } from './evidence.js';
import { countAtOrAfter } from './instants.js';
import { byFrequency } from './rows.js';

/** Pages a walk takes: about three, and never more than the cap even when hasMore lies. */
const WALK_PAGES = 3;
export const WALK_PAGE_CAP = 8;
/** Rows an updatedSince slice aims at, and the fewest a walk needs: two rows at one a page are two pages. */
const SLICE_ROWS = 12;
const WALK_ROWS_MIN = 2;
/** Probes of a narrow filter before the walk gives up for the budget's sake. */
const PROBES_MAX = 3;

export interface Scope {
  query: Query;
  /** Every row of the scope, in the order one page serves them. */
  reference: Load[];
  /** The page the reference came from, when it is not the sample or the tail. */
  referenceExchange: Exchange;
  /** How the scope was chosen, for the report. */
  how: string;
}

export interface Walk {
  scope: Scope;
  pageSize: number;
  pages: Exchange[];
  rows: Load[];
  /** Whether the walk reached its end: hasMore false, an empty page, or totalCount rows. */
  complete: boolean;
}

export type NoScope = { missing: 'rows' | 'budget'; reason: string };

/** The newest rows from an instant on, when the tail holds all of them: no request needed. */
function newestSlice(sample: Sample, tail: Tail): Scope | undefined {
  const values = [...new Set(tail.rows.map((row) => row.updatedAt))];
  const sized = values
    .map((updatedAt) => ({ updatedAt, rows: countAtOrAfter({ sample, tail }, Date.parse(updatedAt)) }))
    .filter((slice): slice is { updatedAt: string; rows: number } => slice.rows !== undefined && slice.rows >= WALK_ROWS_MIN && slice.rows <= TEST_PAGE_SIZE_MAX)
    // Only slices the tail holds whole (its first row is older), so the tail is their reference.
    .filter((slice) => Date.parse(slice.updatedAt) > Date.parse(tail.rows[0]!.updatedAt))
    .sort((a, b) => Math.abs(a.rows - SLICE_ROWS) - Math.abs(b.rows - SLICE_ROWS));
  const slice = sized[0];
  if (!slice) return undefined;
  return {
    query: { updatedSince: slice.updatedAt },
    reference: tail.rows.filter((row) => Date.parse(row.updatedAt) >= Date.parse(slice.updatedAt)),
    referenceExchange: tail.exchange,
    how: `the newest ${slice.rows} rows (updatedSince=${slice.updatedAt})`,
  };
}

/** Each date field's range, its lower and upper bound's parameters, in the order the contract declares them. */
const RANGES = filtersOfKind('lower bound').flatMap(({ field, name: from }) => {
  const upper = filtersOfKind('upper bound').find((bound) => bound.field === field);
  return upper ? [{ field, from, to: upper.name }] : [];
});
const EXACT_FILTERS = filtersOfKind('exact');

/**
 * Narrow filters to probe, the value most often seen first (so the scope surely holds a few rows): the
 * first range at one value, that narrowed by the first exact filter too, the other ranges, each exact filter.
 */
function narrowQueries(rows: readonly Load[]): Query[] {
  const frequent = (field: LoadField) => byFrequency(rows, (row) => row[field] as string | null)[0];
  const ranges: (Query | undefined)[] = RANGES.map(({ field, from, to }) => {
    const value = frequent(field);
    return value === undefined ? undefined : { [from]: value, [to]: value };
  });
  const exact: (Query | undefined)[] = EXACT_FILTERS.map(({ field, name }) => {
    const value = frequent(field);
    return value === undefined ? undefined : { [name]: value };
  });
  const [firstRange, ...otherRanges] = ranges;
  const combined: Query | undefined = firstRange && exact[0] ? { ...firstRange, ...exact[0] } : undefined;
  return [firstRange, combined, ...otherRanges, ...exact].filter((query): query is Query => query !== undefined);
}

export async function chooseScope(sender: Sender, sample: Sample, tail: Tail): Promise<Scope | NoScope> {
  if (sample.totalCount < WALK_ROWS_MIN) {
    return { missing: 'rows', reason: `a walk needs at least ${WALK_ROWS_MIN} visible rows; the first page says totalCount ${sample.totalCount} (and holds ${sample.rows.length} rows)` };
  }
  if (sample.complete && sample.totalCount <= TEST_PAGE_SIZE_MAX) {
    return { query: {}, reference: sample.rows, referenceExchange: sample.exchange, how: `every row the key sees (${sample.totalCount})` };
  }
  const slice = newestSlice(sample, tail);
  if (slice) return slice;
  const tried: string[] = [];
  for (const narrow of narrowQueries([...sample.rows, ...tail.rows]).slice(0, PROBES_MAX)) {
    const probe = await sender.list('primary', { ...narrow, pageSize: TEST_PAGE_SIZE_MAX });
    if (!isPage(probe.body)) return { missing: 'budget', reason: `a probe for a narrow scope was not a page: ${probe.status}` };
    const { totalCount, data } = probe.body;
    tried.push(`${new URLSearchParams(narrow as Record<string, string>).toString()}: ${totalCount} rows`);
    if (totalCount >= WALK_ROWS_MIN && totalCount <= data.length) {
      return { query: narrow, reference: data, referenceExchange: probe, how: `a narrow filter, ${totalCount} rows (${tried.at(-1)})` };
    }
  }
  return { missing: 'budget', reason: `no scope of ${WALK_ROWS_MIN} to ${TEST_PAGE_SIZE_MAX} rows found within ${PROBES_MAX} probes (${tried.join('; ') || 'nothing to filter on'})` };
}

/**
 * About three pages' worth of rows; among the sizes near it, one that puts a page boundary inside a group of
 * rows tied at one updatedAt, because an order that leaves ties to chance shows only there.
 */
function walkPageSize(reference: readonly Load[]): number {
  const rows = reference.length;
  const target = Math.max(1, Math.ceil(rows / WALK_PAGES));
  // Larger sizes first: they cost fewer pages.
  const [largest, smallest] = [Math.ceil(rows / 2), Math.max(1, Math.ceil(rows / (WALK_PAGES + 2)))];
  const near = [target];
  for (let size = target + 1; size <= largest; size += 1) near.push(size);
  for (let size = target - 1; size >= smallest; size -= 1) near.push(size);
  const cutsATie = (size: number) => {
    for (let boundary = size; boundary < rows; boundary += size) {
      if (reference[boundary - 1]!.updatedAt === reference[boundary]!.updatedAt) return true;
    }
    return false;
  };
  return near.find(cutsATie) ?? target;
}

/** Walks the scope at a small page size (walkPageSize). */
export async function walkScope(sender: Sender, scope: Scope): Promise<Walk> {
  const pageSize = walkPageSize(scope.reference);
  const pages: Exchange[] = [];
  const rows: Load[] = [];
  const walk = (complete: boolean): Walk => ({ scope, pageSize, pages, rows, complete });
  for (let page = 1; page <= WALK_PAGE_CAP; page += 1) {
    const exchange = await sender.list('primary', { ...scope.query, page, pageSize });
    pages.push(exchange);
    if (!isPage(exchange.body)) return walk(false);
    rows.push(...exchange.body.data);
    // The end is a page saying so, an empty page, or totalCount reached: a wrong hasMore must not run the walk on.
    const { hasMore, data, totalCount } = exchange.body;
    if (!hasMore || data.length === 0 || rows.length >= totalCount) return walk(true);
  }
  return walk(false);
}
