// The plain key walk: page 1 from the last row's updatedAt, again and again, the rows of that instant
// already read dropped; a page that is one instant from end to end is followed by page number until a page
// shows the rows after it. No stretches, no plan, nothing kept between pages but the last instant and its
// rows: `verifyCopy` reads the feed this way, a different walk from the sync's, so that a fault in one is
// caught by the other. It holds every page to what SPEC implies (page-contract.ts), as the sync does.
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import type { CallOptions, ListLoadsParams, LoadfeedClient, LoadRow, Page } from './client.js';
import { BadRequestError } from './errors.js';
import { checkedPage } from './page-contract.js';

export interface KeyWalkOptions {
  /** Rows per request; default the contract's largest, falling back once to SPEC's default on a 400. */
  pageSize?: number;
  call?: CallOptions;
}

/** Rows the walk has not handed out before, and the page they came on. */
export interface KeyWalkStep {
  rows: LoadRow[];
  page: Page;
}

/** The updatedAt of the page's last row, and the loadNumbers of the rows at it. */
function tieAtEnd(rows: readonly LoadRow[]): { since: string; seen: Set<string> } {
  const since = rows[rows.length - 1]!.updatedAt;
  const seen = new Set<string>();
  for (let index = rows.length - 1; index >= 0 && rows[index]!.updatedAt === since; index -= 1) seen.add(rows[index]!.loadNumber);
  return { since, seen };
}

/** Every row of the feed, by key, one page at a time. */
export async function* walkByKeyOnly(client: LoadfeedClient, options: KeyWalkOptions = {}): AsyncGenerator<KeyWalkStep, void, undefined> {
  let size = options.pageSize ?? PAGE_SIZE_CEILING;
  let mayFallBack = options.pageSize === undefined && size > DEFAULT_PAGE_SIZE;
  const call = options.call ?? {};

  async function ask(updatedSince: string | undefined, page: number): Promise<Page> {
    const params: ListLoadsParams = { page, pageSize: size };
    if (updatedSince !== undefined) params.updatedSince = updatedSince;
    let result: Page;
    try {
      result = await checkedPage(() => client.listLoads(params, call), { updatedSince, page });
    } catch (error) {
      if (!(mayFallBack && error instanceof BadRequestError)) throw error;
      mayFallBack = false;
      size = DEFAULT_PAGE_SIZE;
      return ask(updatedSince, page);
    }
    mayFallBack = false;
    if (result.pageSize < size) size = result.pageSize;
    return result;
  }

  let since: string | undefined;
  let seen = new Set<string>();
  for (;;) {
    const page = await ask(since, 1);
    const rows = page.data;
    if (rows.length === 0) return;
    yield { rows: seen.size === 0 ? rows : rows.filter((row) => !(row.updatedAt === since && seen.has(row.loadNumber))), page };
    if (!page.hasMore) return;
    const last = rows[rows.length - 1]!.updatedAt;
    if (rows[0]!.updatedAt !== last) {
      ({ since, seen } = tieAtEnd(rows));
      continue;
    }
    // One instant fills the page: page 1 from it is this page, so its pages 2, 3… follow, up to the first
    // that shows a later row (the page arithmetic bounds them: a page past the count is refused).
    for (let number = 2; ; number += 1) {
      const next = await ask(last, number);
      yield { rows: next.data, page: next };
      if (!next.hasMore || next.data.length === 0) return;
      if (next.data[next.data.length - 1]!.updatedAt !== last) {
        ({ since, seen } = tieAtEnd(next.data));
        break;
      }
    }
  }
}
