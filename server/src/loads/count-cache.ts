// Exact totalCounts kept between requests: counting a customer's window is most of a page's cost, and a
// sync asks for the same count on every page. An entry is reused only while the customer's feed version
// (migrations/0004_feed-versions.sql) is the one it was counted at, and its key holds the window start,
// so a write or the window's daily move makes it miss: a reused count is always the exact count.
// Counts are of the settled feed, so an entry is kept only when it covers every row of its version (the
// customer's latest stamp was settled when it was counted), and reused only while the horizon still is
// at or past that stamp: the settled rows at that version are then the same rows.
// Known before the page is read, a kept count also lets a deep page be read from the end (list.ts).
import { createHash } from 'node:crypto';
import type { LoadFilters } from './list-query.js';

/**
 * Entries kept at most; the oldest go first. Each is a key of at most SHORT_KEY characters (a digest for
 * longer filters: filters such as poNumber can be kilobytes long, and were the key's size before, 10,000
 * distinct 15 KB poNumbers took the server from 97 MB to 278 MB) and two short values, so the cache stays
 * near a few megabytes.
 */
const CAPACITY = 10_000;
/**
 * Up to this length the key is the filters' JSON itself (a JSON array, starting with `[`, which no
 * base64url digest holds, so the two kinds of key never meet): most requests' filters are a few dozen
 * characters, and hashing them costs more than the rest of the key's work (server/BENCHMARKS.md,
 * "Less work around the statements").
 */
const SHORT_KEY = 128;

/** A count, the feed version it was taken at, and that version's latest stamp (epoch ms). */
export interface KeptCount {
  version: string;
  latest: number;
  count: number;
}

export class CountCache {
  readonly #entries = new Map<string, KeptCount>();

  /** Everything the count depends on, as JSON, or its SHA-256 when longer than SHORT_KEY: a bounded size whatever the filters hold. */
  static keyOf(customerId: string, windowStart: Date, { page: _page, pageSize: _pageSize, ...filters }: LoadFilters): string {
    const json = JSON.stringify([customerId, windowStart.getTime(), filters]);
    return json.length <= SHORT_KEY ? json : createHash('sha256').update(json).digest('base64url');
  }

  /** The count kept for the key if `settledThrough` (epoch ms) covers it, at whatever version it was taken; the caller checks the version. */
  get(key: string, settledThrough: number): KeptCount | undefined {
    const kept = this.#entries.get(key);
    return kept && kept.latest <= settledThrough ? kept : undefined;
  }

  set(key: string, version: string, latest: number, count: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { version, latest, count });
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
