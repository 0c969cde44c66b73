// A small seeded PRNG, so that one seed always yields the same data set (Math.random cannot be seeded).

/** A source of uniform numbers in [0, 1) and the few draws the generator needs. */
export interface Random {
  /** A uniform number in [0, 1). */
  next(): number;
  /** A uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One key of `weights`, drawn in proportion to its weight. */
  weighted<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K;
}

/** mulberry32: 32 bits of state, fast, and good enough for synthetic data. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick() needs at least one item');
      return items[int(0, items.length - 1)]!;
    },
    weighted: <K extends string>(weights: Readonly<Partial<Record<K, number>>>): K => {
      const entries = Object.entries(weights) as [K, number][];
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let draw = next() * total;
      for (const [key, weight] of entries) {
        draw -= weight;
        if (draw < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
  };
}

/** A 32-bit seed from any text (FNV-1a), so that `--seed demo` and per-customer streams work. */
export function seedFromText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
