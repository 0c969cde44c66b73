// Exact totalCounts kept between requests: counting a customer's window is most of a page's cost, and a
// sync asks for the same count on every page. An entry is reused only while the customer's feed version
// (migrations/0004_feed-versions.sql) is the one it was counted at, and its key holds the window start,
// so a write or the window's daily move makes it miss: a reused count is always the exact count.
import type { LoadFilters } from './list-query.js';

/** Entries kept at most; the oldest go first. Each is a short key and two numbers. */
const CAPACITY = 10_000;

interface Counted {
  version: string;
  count: number;
}

export class CountCache {
  readonly #entries = new Map<string, Counted>();

  static keyOf(customerId: string, windowStart: Date, { page: _page, pageSize: _pageSize, ...filters }: LoadFilters): string {
    return JSON.stringify([customerId, windowStart.getTime(), filters]);
  }

  /** The count taken at `version`, if there is one. */
  get(key: string, version: string): number | undefined {
    const entry = this.#entries.get(key);
    return entry?.version === version ? entry.count : undefined;
  }

  /** Whether some count is kept for the key, at any version. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  set(key: string, version: string, count: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { version, count });
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
