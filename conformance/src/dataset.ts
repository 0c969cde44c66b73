// What the key can see, learnt within the budget: the sample (the largest page the deployment serves,
// which the run's preflight already fetched) and one walk at a small page size over a slice of few rows.
import { PAGE_SIZE_CEILING, type Load, type LoadPage } from '@loadfeed/spec';
import { WALK_PAGE_CAP, WALK_PAGE_TARGET } from './budget.js';
import type { Query, Sender } from './client.js';
import type { Exchange } from './evidence.js';
import type { KeyLabel } from './options.js';

/** The request whose answer is the sample: a page size above any maximum, so the largest page comes back. */
export const SAMPLE_QUERY: Query = { pageSize: PAGE_SIZE_CEILING + 1 };

/** A walk over more rows than this runs over the newest rows only (an updatedSince slice). */
const WHOLE_WALK_MAX_ROWS = 40;
const SLICE_ROWS = 12;

export function isPage(body: unknown): body is LoadPage {
  if (typeof body !== 'object' || body === null) return false;
  const page = body as Record<string, unknown>;
  return Array.isArray(page.data) && typeof page.totalCount === 'number' && typeof page.hasMore === 'boolean' && typeof page.pageSize === 'number';
}

export interface Sample {
  exchange: Exchange;
  rows: Load[];
  totalCount: number;
  pageSize: number;
  /** Whether the sample holds every row the key can see. */
  complete: boolean;
}

export async function takeSample(sender: Sender, key: KeyLabel): Promise<Sample | Exchange> {
  const exchange = await sender.list(key, SAMPLE_QUERY);
  if (exchange.status !== 200 || !isPage(exchange.body)) return exchange;
  const page = exchange.body;
  return { exchange, rows: page.data, totalCount: page.totalCount, pageSize: page.pageSize, complete: page.data.length >= page.totalCount };
}

export interface Walk {
  query: Query;
  pageSize: number;
  pages: Exchange[];
  rows: Load[];
  /** Whether the walk reached its end: hasMore false, an empty page, or totalCount rows. */
  complete: boolean;
}

/** Picks what to walk: everything when the key sees few rows, else the newest rows via updatedSince. */
async function walkScope(sender: Sender, sample: Sample): Promise<{ query: Query; rows: number }> {
  if (sample.complete && sample.totalCount <= WHOLE_WALK_MAX_ROWS) return { query: {}, rows: sample.totalCount };
  let newest = sample.rows;
  if (!sample.complete) {
    const lastPage = Math.ceil(sample.totalCount / sample.pageSize);
    const tail = await sender.list('primary', { ...SAMPLE_QUERY, page: lastPage });
    newest = isPage(tail.body) && tail.body.data.length > 0 ? tail.body.data : sample.rows;
  }
  const cursor = newest[Math.max(0, newest.length - SLICE_ROWS)]!.updatedAt;
  return { query: { updatedSince: cursor }, rows: newest.filter((row) => row.updatedAt >= cursor).length };
}

/** Walks a scope of at least 3 rows at a page size that takes about four pages, up to a cap. */
export async function walkPages(sender: Sender, sample: Sample): Promise<Walk> {
  const scope = await walkScope(sender, sample);
  const pageSize = Math.min(100, Math.max(1, Math.ceil(scope.rows / WALK_PAGE_TARGET)));
  const pages: Exchange[] = [];
  const rows: Load[] = [];
  for (let page = 1; page <= WALK_PAGE_CAP; page += 1) {
    const exchange = await sender.list('primary', { ...scope.query, page, pageSize });
    pages.push(exchange);
    if (!isPage(exchange.body)) return { query: scope.query, pageSize, pages, rows, complete: false };
    rows.push(...exchange.body.data);
    // The end is a page saying so, an empty page, or totalCount reached: a wrong hasMore must not run the walk on.
    const { hasMore, data, totalCount } = exchange.body;
    if (!hasMore || data.length === 0 || rows.length >= totalCount) return { query: scope.query, pageSize, pages, rows, complete: true };
  }
  return { query: scope.query, pageSize, pages, rows, complete: false };
}
