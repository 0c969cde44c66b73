// Where pages ended, kept between requests, so that the next page by number is read after its key instead
// of by skipping every row before it. A client that reads pages 1, 2, 3… from one anchor (SPEC §4's loop,
// the SDK's checked stretches) otherwise makes the server skip (page - 1) x pageSize rows for each page (or
// the rows after it, from the end): a first copy of N rows then costs the database O(N²). Read after the
// load that ended the page before, each page costs its own rows.
// A boundary is "the row at this position of this query's feed, at this feed version": it holds only while
// the feed version is the one it was recorded at, the version a kept count for the same query holds
// (count-cache.ts). The page statement reads the version in its own snapshot and the caller checks it
// (list.ts), so a boundary that a write made stale is never used for a page that is served.

import type { CountCache } from './count-cache.js';

/** Entries kept at most; the oldest go first. Each is a count cache key, a position, a version and a load number. */
const CAPACITY = 10_000;

export interface PageBoundary {
  version: string;
  /** The load that ends the rows before the position, by its load number (unique per customer). */
  loadNumber: string;
}

/**
 * Rows before a page from which on it is read after its boundary: the statement after a load is planned on
 * every request (the planned page statements skip instead, sql/functions/feed_page_from_start.sql), and
 * skipping about this many index entries costs what planning costs.
 */
const SEEK_FROM = 10_000;

export class PageBoundaries {
  readonly #entries = new Map<string, PageBoundary>();
  readonly #seekFrom: number;

  constructor({ seekFrom = SEEK_FROM }: { seekFrom?: number } = {}) {
    this.#seekFrom = seekFrom;
  }

  /**
   * The boundary before `position` rows of the query whose count key is `key`, recorded at `version`;
   * none before `seekFrom` rows, where skipping them costs less than seeking.
   */
  get(key: string, position: number, version: string): PageBoundary | undefined {
    if (position < this.#seekFrom) return undefined;
    const kept = this.#entries.get(`${position} ${key}`);
    return kept?.version === version ? kept : undefined;
  }

  set(key: string, position: number, boundary: PageBoundary): void {
    const entry = `${position} ${key}`;
    this.#entries.delete(entry);
    this.#entries.set(entry, boundary);
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** What opens each load's JSON (sql/functions/load_json.sql: loadNumber is its first field). */
const LOAD_START = '{"loadNumber":';

/**
 * The load number of a page's last load, from the page's JSON array. A quote inside a JSON string is
 * escaped, so the text LOAD_START occurs only where a load begins; the last one begins the last load.
 */
export function lastLoadNumber(data: string): string | undefined {
  const start = data.lastIndexOf(LOAD_START);
  if (start < 0) return undefined;
  const load = JSON.parse(data.slice(start, data.endsWith(']') ? -1 : undefined)) as { loadNumber?: unknown };
  return typeof load.loadNumber === 'string' ? load.loadNumber : undefined;
}

/**
 * Whether a request settled through `settledThrough` reads every row of the feed at `version`: the count
 * kept for the key is of that version and covers it. A boundary is the same row only for such requests.
 */
export function coversVersion(counts: CountCache, key: string, settledThrough: number, version: string): boolean {
  return counts.get(key, settledThrough)?.version === version;
}

/**
 * Keeps where a page (its rows as JSON, read at its feed version) ended, `position` rows into the query's
 * feed, while the query's count is kept at that version.
 */
export function rememberPageEnd(
  boundaries: PageBoundaries | undefined,
  counts: CountCache,
  key: string,
  settledThrough: number,
  position: number,
  page: { feed_version: string; page_rows: number; data: string },
): void {
  if (!boundaries || page.page_rows === 0 || !coversVersion(counts, key, settledThrough, page.feed_version)) return;
  const loadNumber = lastLoadNumber(page.data);
  if (loadNumber !== undefined) boundaries.set(key, position, { version: page.feed_version, loadNumber });
}
