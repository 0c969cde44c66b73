import type { Load } from '@loadfeed/spec';
import { describe, expect, it } from 'vitest';
import type { Sample, Tail } from '../src/dataset.js';
import type { Exchange } from '../src/evidence.js';
import { choosePivot, countAfter, countAtOrAfter } from '../src/instants.js';
import type { Sender } from '../src/client.js';
import { walkScope } from '../src/walk.js';

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const row = (n: number, at: number) => ({ loadNumber: `L${n}`, updatedAt: new Date(at).toISOString() }) as Load;
const exchange = {} as Exchange;

/** `total` rows whose updatedAt is `stamp(i)`, seen through a first page and a last page of `pageSize`. */
function view(total: number, pageSize: number, stamp: (i: number) => number): { sample: Sample; tail: Tail } {
  const rows = Array.from({ length: total }, (_, i) => row(i, stamp(i)));
  const sample = { exchange, rows: rows.slice(0, pageSize), totalCount: total, pageSize, complete: total <= pageSize };
  return { sample, tail: { exchange, rows: sample.complete ? sample.rows : rows.slice(-pageSize) } };
}

describe('exact counts from the first and last pages', () => {
  it('a bulk load of 30,000 rows at one instant: all at it, none after, one millisecond later none', () => {
    const known = view(30_000, 100, () => T0);
    expect(countAtOrAfter(known, T0)).toBe(30_000);
    expect(countAfter(known, T0)).toBe(0);
    expect(choosePivot(known)).toEqual({ updatedAt: new Date(T0).toISOString(), atOrAfter: 30_000, after: 0, before: 0 });
  });

  it('20,000 rows a minute apart: a pivot inside the last page, with older rows before it', () => {
    const known = view(20_000, 100, (i) => T0 + i * 60_000);
    const pivot = choosePivot(known)!;
    expect(pivot.before).toBeGreaterThan(0);
    expect(pivot.atOrAfter + pivot.before).toBe(20_000);
    expect(pivot.atOrAfter - pivot.after).toBe(1);
  });

  it('says nothing where neither page can tell', () => {
    const known = view(20_000, 100, (i) => T0 + i * 60_000);
    expect(countAtOrAfter(known, T0 + 10_000 * 60_000)).toBeUndefined();
  });

  it('prefers an instant with older rows before it and a tie at it', () => {
    const known = view(10, 100, (i) => T0 + Math.floor(i / 3) * 1000);
    const pivot = choosePivot(known)!;
    expect(pivot.before).toBeGreaterThan(0);
    expect(pivot.atOrAfter - pivot.after).toBe(3);
  });
});

/** A deployment that serves `rows` in pages, as the walk asks for them. */
function serving(rows: readonly Load[]): Sender {
  return {
    async list(_key, query) {
      const { page, pageSize } = query as { page: number; pageSize: number };
      const data = rows.slice((page - 1) * pageSize, page * pageSize);
      return { body: { data, page, pageSize, totalCount: rows.length, hasMore: page * pageSize < rows.length } } as Exchange;
    },
    send: () => Promise.reject(new Error('not used')),
  };
}

describe('walkScope', () => {
  it('puts a page boundary inside a tied group, where an order that leaves ties to chance shows, in at most five pages', async () => {
    const reference = Array.from({ length: 36 }, (_, i) => row(i, T0 + Math.floor(i / 6) * 1000));
    const walk = await walkScope(serving(reference), { query: {}, reference, referenceExchange: exchange, how: 'all' });
    expect(walk.complete).toBe(true);
    expect(walk.pageSize % 6).not.toBe(0);
    expect(walk.pages.length).toBeLessThanOrEqual(5);
    expect(walk.rows).toEqual(reference);
  });

  it('walks two rows as two pages of one', async () => {
    const reference = [row(1, T0), row(2, T0)];
    const walk = await walkScope(serving(reference), { query: {}, reference, referenceExchange: exchange, how: 'all' });
    expect([walk.complete, walk.pageSize, walk.pages.length]).toEqual([true, 1, 2]);
  });
});
