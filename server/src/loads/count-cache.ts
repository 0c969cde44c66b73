// Exact totalCounts kept between requests: counting a customer's window is most of a page's cost, and a
// sync asks for the same count on every page. An entry is reused only while the customer's feed version
// (migrations/0004_feed-versions.sql) is the one it was counted at, and its key holds the window start,
// so a write or the window's daily move makes it miss: a reused count is always the exact count.
// Known before the page is read, a kept count also lets a deep page be read from the end (list.ts).
import type { LoadFilters } from './list-query.js';

/** Entries kept at most; the oldest go first. Each is a short key and two numbers. */
const CAPACITY = 10_000;

/** A count and the feed version it was taken at. */
export interface KeptCount {
  version: string;
  count: number;
}

export class CountCache {
  readonly #entries = new Map<string, KeptCount>();

  static keyOf(customerId: string, windowStart: Date, { page: _page, pageSize: _pageSize, ...filters }: LoadFilters): string {
    return JSON.stringify([customerId, windowStart.getTime(), filters]);
  }

  /** The count kept for the key, at whatever version it was taken; the caller checks the version. */
  get(key: string): KeptCount | undefined {
    return this.#entries.get(key);
  }

  set(key: string, version: string, count: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { version, count });
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
