// What the key can see, learnt within the budget: the sample (the largest page the deployment serves, which
// the run's preflight already fetched: the oldest rows) and the tail (the last page: the newest rows). Both
// are chosen from what the first response shows, whatever the data: a few rows, a bulk load that shares one
// updatedAt, tens of thousands of rows spread over months.
import { PAGE_SIZE_CEILING, type Load, type LoadPage } from '@loadfeed/spec';
import type { Query, Sender } from './client.js';
import type { Exchange } from './evidence.js';
import type { KeyLabel } from './options.js';

/** The request whose answer is the sample: a page size above any maximum, so the largest page comes back. */
export const SAMPLE_QUERY: Query = { pageSize: PAGE_SIZE_CEILING + 1 };

/** SPEC §8: tests use page sizes of 100 or less. */
export const TEST_PAGE_SIZE_MAX = 100;
/** The tail should hold at least this many rows, so that the newest rows offer slices and ties. */
const TAIL_ROWS_MIN = 24;

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

/** The newest rows: the last page, at the largest page size whose last page is not nearly empty. */
export interface Tail {
  /** The page the rows came from: the sample itself when it holds every row. */
  exchange: Exchange;
  rows: Load[];
}

/** A page size of at most `largest` whose last page holds at least TAIL_ROWS_MIN rows (or is full). */
function tailPageSize(totalCount: number, largest: number): number {
  for (let size = largest; size > TAIL_ROWS_MIN; size -= 1) {
    const onLast = totalCount % size;
    if (onLast === 0 || onLast >= TAIL_ROWS_MIN) return size;
  }
  return largest;
}

export async function takeTail(sender: Sender, sample: Sample): Promise<Tail> {
  if (sample.complete) return { exchange: sample.exchange, rows: sample.rows };
  const pageSize = tailPageSize(sample.totalCount, Math.min(sample.pageSize, TEST_PAGE_SIZE_MAX));
  const exchange = await sender.list('primary', { pageSize, page: Math.ceil(sample.totalCount / pageSize) });
  return { exchange, rows: isPage(exchange.body) ? exchange.body.data : [] };
}
