// What `verifyCopy` remembers of the rows the feed served: for each, a 61-bit hash of its loadNumber and
// its outcome, packed in one 64-bit word (8 bytes a row: 12 MB at 1.5M rows, where a Map of loadNumbers
// took hundreds). It needs that much to tell a row of the copy the feed no longer serves, and to count a
// row served twice (changed during the walk) once. Two loadNumbers share a hash with a chance of about
// n² / 2^62 (one in two million at 1.5M rows); they would then count as one row.

/** A served row's outcome; a larger code wins when one row is served twice (its later version is newer). */
export const OUTCOME = { equal: 0n, missing: 1n, differing: 2n, newer: 3n } as const;
export type Outcome = (typeof OUTCOME)[keyof typeof OUTCOME];

const OUTCOME_BITS = 3n;
const OUTCOME_MASK = (1n << OUTCOME_BITS) - 1n;

/** Two independent 32-bit string hashes (FNV-1a and a multiply-xorshift), 61 bits of them. */
function hash61(text: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  return (BigInt(a >>> 3) << 32n) | BigInt(b >>> 0);
}

export interface Tally {
  served: number;
  equal: number;
  missing: number;
  differing: number;
  newer: number;
}

export function servedRows() {
  let words = new BigUint64Array(1024);
  let length = 0;
  let settled = false;

  /** The index of the word of `hash`, or -1 (after settle: sorted, one word a hash). */
  function find(hash: bigint): number {
    let low = 0;
    let high = length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = words[middle]! >> OUTCOME_BITS;
      if (at === hash) return middle;
      if (at < hash) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  return {
    add(loadNumber: string, outcome: Outcome): void {
      if (length === words.length) {
        const grown = new BigUint64Array(words.length * 2);
        grown.set(words);
        words = grown;
      }
      words[length] = (hash61(loadNumber) << OUTCOME_BITS) | outcome;
      length += 1;
    },
    /** Sorts, keeps one word a row (the largest outcome), and counts the outcomes. */
    settle(): Tally {
      const sorted = words.subarray(0, length).sort();
      let kept = 0;
      for (let index = 0; index < length; index += 1) {
        const word = sorted[index]!;
        const next = index + 1 < length ? sorted[index + 1]! : undefined;
        // Sorted, a row's words sit together with its largest outcome last.
        if (next !== undefined && next >> OUTCOME_BITS === word >> OUTCOME_BITS) continue;
        sorted[kept] = word;
        kept += 1;
      }
      length = kept;
      words = words.slice(0, kept);
      settled = true;
      const tally: Tally = { served: kept, equal: 0, missing: 0, differing: 0, newer: 0 };
      for (const word of words) {
        const outcome = word & OUTCOME_MASK;
        if (outcome === OUTCOME.equal) tally.equal += 1;
        else if (outcome === OUTCOME.missing) tally.missing += 1;
        else if (outcome === OUTCOME.differing) tally.differing += 1;
        else tally.newer += 1;
      }
      return tally;
    },
    /** The row's outcome once settled, or undefined when the feed did not serve it. */
    outcomeOf(loadNumber: string): Outcome | undefined {
      if (!settled) throw new Error('servedRows: settle() first');
      const index = find(hash61(loadNumber));
      return index < 0 ? undefined : ((words[index]! & OUTCOME_MASK) as Outcome);
    },
  };
}
