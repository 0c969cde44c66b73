// The turns at the database and the queues that wait for them, one per key, fair between keys. A turn
// that frees goes to the key that holds the fewest turns at that moment (among equals, the one whose next
// request has waited longest), and a full queue makes room for a key with fewer waiting requests than the
// key with the most, whose latest arrival gets the 503. One key's burst thus takes turns only as other keys
// leave them free: deep pages of one key do not make another customer's request wait behind them.
import Boom from '@hapi/boom';

export interface ConcurrencyGateOptions {
  /** Requests at the database at once: the pool's size, so that none waits inside the pool. */
  concurrency: number;
  /** Requests that may wait for a turn; one more gets a 503 at once (or displaces a key with more waiting). */
  maxQueued: number;
  /** How long one may wait before it gets a 503. */
  maxWaitMs: number;
}

/** Whole seconds a refused client is told to wait: a turn frees within milliseconds, so the least. */
const BUSY_RETRY_AFTER_SECONDS = 1;

interface Waiter {
  key: string;
  /** Arrival order, across keys. */
  order: number;
  admit(): void;
  refuse(error: Boom.Boom): void;
}

/** The 503 a request gets when the server cannot take it now; `reason` goes to the log, not the client. */
function busy(reason: string): Boom.Boom {
  return Boom.serverUnavailable('busy', { retryAfter: BUSY_RETRY_AFTER_SECONDS, reason });
}

/** The turns and the per-key queues: who holds how many turns, who waits, and who is next. */
export class Turns {
  private active = 0;
  private readonly activeByKey = new Map<string, number>();
  private readonly queues = new Map<string, Waiter[]>();
  private queued = 0;
  private arrivals = 0;

  constructor(private readonly options: ConcurrencyGateOptions) {}

  /** Resolves with a turn; rejects with a 503 (no room, or no turn in time), or a 408 when `gone` fires first (the client left while waiting). */
  enter(key: string, gone: (listener: () => void) => void): Promise<void> {
    const { concurrency, maxQueued, maxWaitMs } = this.options;
    if (this.active < concurrency) {
      this.take(key);
      return Promise.resolve();
    }
    if (this.queued >= maxQueued && !this.makeRoomFor(key)) {
      return Promise.reject(busy(`overloaded: ${this.active} requests at the database and ${this.queued} waiting`));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        order: this.arrivals++,
        admit() {
          clearTimeout(timer);
          resolve();
        },
        refuse(error) {
          clearTimeout(timer);
          reject(error);
        },
      };
      const leaveQueue = (error: Boom.Boom) => {
        if (this.remove(waiter)) waiter.refuse(error);
      };
      const timer = setTimeout(() => leaveQueue(busy(`overloaded: no turn at the database within ${maxWaitMs} ms`)), maxWaitMs);
      // A client that gave up does not take a turn from one still waiting.
      gone(() => leaveQueue(Boom.clientTimeout('the client closed the connection while waiting')));
      this.queueOf(key).push(waiter);
      this.queued += 1;
    });
  }

  /** Gives a turn back, and hands it to the next waiter by the fairness rule. */
  leave(key: string): void {
    this.active -= 1;
    const held = (this.activeByKey.get(key) ?? 1) - 1;
    if (held === 0) this.activeByKey.delete(key);
    else this.activeByKey.set(key, held);
    const next = this.next();
    if (!next) return;
    this.remove(next);
    this.take(next.key);
    next.admit();
  }

  private take(key: string): void {
    this.active += 1;
    this.activeByKey.set(key, (this.activeByKey.get(key) ?? 0) + 1);
  }

  /** The head of the queue of the key holding the fewest turns; among equals, the one that arrived first. */
  private next(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestHeld = Infinity;
    for (const [key, queue] of this.queues) {
      const head = queue[0]!;
      const held = this.activeByKey.get(key) ?? 0;
      if (held < bestHeld || (held === bestHeld && head.order < best!.order)) {
        best = head;
        bestHeld = held;
      }
    }
    return best;
  }

  /** With the queue full: refuses the latest waiter of the key with the most waiting, if that is more than `key` has. */
  private makeRoomFor(key: string): boolean {
    const waiting = this.queues.get(key)?.length ?? 0;
    let fullest: Waiter[] | undefined;
    for (const queue of this.queues.values()) if (!fullest || queue.length > fullest.length) fullest = queue;
    if (!fullest || fullest.length <= waiting + 1) return false;
    const displaced = fullest.at(-1)!;
    this.remove(displaced);
    displaced.refuse(busy(`overloaded: the queue is full and this key had the most requests waiting (${fullest.length + 1})`));
    return true;
  }

  private queueOf(key: string): Waiter[] {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = [];
      this.queues.set(key, queue);
    }
    return queue;
  }

  private remove(waiter: Waiter): boolean {
    const queue = this.queues.get(waiter.key);
    const index = queue?.indexOf(waiter) ?? -1;
    if (index < 0) return false;
    queue!.splice(index, 1);
    if (queue!.length === 0) this.queues.delete(waiter.key);
    this.queued -= 1;
    return true;
  }
}

