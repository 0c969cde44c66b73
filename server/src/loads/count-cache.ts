// Exact totalCounts kept between requests: counting a customer's window is most of a page's cost, and a
// sync asks for the same count on every page. An entry is reused only while the customer's feed version
// (migrations/0004_feed-versions.sql) is the one it was counted at, and its key holds the window start,
// so a write or the window's daily move makes it miss: a reused count is always the exact count.
// Counts are of the settled feed, so an entry is kept only when it covers every row of its version (the
// customer's latest stamp was settled when it was counted), and reused only while the horizon still is
// at or past that stamp: the settled rows at that version are then the same rows.
// Known before the page is read, a kept count also lets a deep page be read from the end (list.ts).
// Counts are taken once at a time per key: a request that misses while another request of this process
// counts the same filters waits for that count instead of running its own (a write to a big customer
// makes every waiting request miss at once, and ten counts of its window were ten times the database's
// work for one answer). The waiter then reads the page alone, at the count's version or not at all.
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
  /** The counts under way, by key: settled (never rejected) when the count is kept or has failed. */
  readonly #counting = new Map<string, Promise<void>>();

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

  /** Resolves when the count under way for the key has ended; undefined when none is. */
  counting(key: string): Promise<void> | undefined {
    return this.#counting.get(key);
  }

  /** Runs `count` as the key's count under way (the caller has found none), so that later misses wait for it. */
  async count<T>(key: string, count: () => Promise<T>): Promise<T> {
    let done!: () => void;
    this.#counting.set(key, new Promise<void>((resolve) => (done = resolve)));
    try {
      return await count();
    } finally {
      this.#counting.delete(key);
      done();
    }
  }

  set(key: string, version: string, latest: number, count: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { version, latest, count });
    if (this.#entries.size > CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
