// The kept counts' memory is bounded in bytes, not only in entries: a filter can be kilobytes long.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CountCache } from '../../src/loads/count-cache.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('the kept counts\' memory', () => {
  it('stays within a few megabytes after 25,000 counts for distinct 15 KB poNumbers', () => {
    const windowStart = new Date('2025-06-15T00:00:00.000Z');
    const filler = 'P'.repeat(15_000);
    const before = heapAfterGc();
    const counts = new CountCache();
    for (let index = 0; index < 25_000; index += 1) {
      counts.set(CountCache.keyOf('42', windowStart, { page: 1, pageSize: 100, poNumber: `${filler}${index}` }), '7', 0, index);
    }
    const grown = heapAfterGc() - before;
    // Keyed by the filters themselves, the entries kept held ~150 MB (10,000 of 15 KB).
    expect(grown).toBeLessThan(8 * 1024 * 1024);
    // Still a cache: the latest counts are there, under keys of a fixed size.
    const key = CountCache.keyOf('42', windowStart, { page: 3, pageSize: 10, poNumber: `${filler}24999` });
    expect(counts.get(key, 0)).toEqual({ version: '7', latest: 0, count: 24_999 });
    expect(key.length).toBeLessThanOrEqual(64);
    expect(counts.get(CountCache.keyOf('42', windowStart, { page: 1, pageSize: 100, poNumber: `${filler}0` }), 0)).toBeUndefined();
  });

  it('keys short filters by their JSON and longer ones by a digest, and never mistakes one for the other', () => {
    const windowStart = new Date('2025-06-15T00:00:00.000Z');
    const short = CountCache.keyOf('42', windowStart, { page: 1, pageSize: 100, poNumber: 'P-1' });
    expect(short).toBe(JSON.stringify(['42', windowStart.getTime(), { poNumber: 'P-1' }]));
    expect(CountCache.keyOf('42', windowStart, { page: 7, pageSize: 10, poNumber: 'P-1' })).toBe(short);
    const long = CountCache.keyOf('42', windowStart, { page: 1, pageSize: 100, poNumber: 'P'.repeat(200) });
    expect(long).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Every key of either kind is at most 128 characters, and a digest never starts as JSON does.
    for (const length of [0, 50, 90, 100, 110, 120, 200]) {
      const key = CountCache.keyOf('42', windowStart, { page: 1, pageSize: 100, poNumber: 'P'.repeat(length) });
      expect(key.length).toBeLessThanOrEqual(128);
      expect(key.startsWith('[')).toBe(key === JSON.stringify(['42', windowStart.getTime(), { poNumber: 'P'.repeat(length) }]));
    }
  });
});
