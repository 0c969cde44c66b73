// The concurrency gate: at most as many requests work at the database at once as the pool has
// connections, a bounded queue waits for a turn for a bounded time, and what neither takes gets a 503
// with Retry-After at once. Without it, a burst queued inside the pool, waited there until the pool's
// connect timeout and ended in slow 500s (2,000 requests at once: 192 of them after ~8 s).
//
// Fair between keys: the bearer token is read (and hashed) before the database is asked, so requests
// wait in one queue per key. A turn that frees goes to the key that holds the fewest turns at that moment
// (among equals, the one whose next request has waited longest), and a full queue makes room for a key
// with fewer waiting requests than the key with the most, whose latest arrival gets the 503. One key's
// burst thus takes turns only as other keys leave them free: 200 deep pages of one key do not make
// another customer's request wait behind them. Requests without a well-formed key share one key.
//
// A turn is held while the request's database work runs: a client that disconnects has its statement
// cancelled (db/cancellable.ts), and its turn is given back only once that statement has ended, so that
// the pool never has more statements running than turns given out.
import Boom from '@hapi/boom';
import type { ServerResponse } from 'node:http';
import type { Lifecycle } from '@hapi/hapi';
import { hashKey, isWellFormedKey } from './key-format.js';
import type { CancelSignal } from '../db/cancellable.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /**
     * Set while the request holds a turn at the database: runs the request's database `work`, with a
     * signal that aborts when the client disconnects; the turn is not given back while work runs.
     */
    atDatabase?: <T>(work: (disconnected: CancelSignal) => Promise<T>) => Promise<T>;
  }
}

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
/** The key of requests whose bearer token is missing or malformed: they share one queue. */
const NO_KEY = 'no key';
/** How the scheme reads the header (scheme.ts); the name in any case. */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

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

/** Whose turn a request takes: the hash of its bearer key (never the key itself), or NO_KEY. */
function fairnessKeyOf(authorization: unknown): string {
  const key = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
  return key !== undefined && isWellFormedKey(key) ? hashKey(key).toString('base64') : NO_KEY;
}

/** The turns and the per-key queues: who holds how many turns, who waits, and who is next. */
class Turns {
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

/** Why a statement of a request whose client has left is refused: AbortSignal's own reason. */
function clientLeft(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A request's turn at the database, from its admission until it has been answered (or its client has
 * left) and its database work has ended; it is also the signal that cancels that work when the client
 * leaves (db/cancellable.ts). One plain object per request, on purpose: an AbortController per request,
 * or a `once` listener on the response, left garbage in V8's old generation that only full collections
 * reclaim (page 1 of 100 under load: 8-18 mark-compacts per 1,000 requests against none without them;
 * server/README.md, "This release: the peer's targets").
 */
class Turn implements CancelSignal {
  aborted = false;
  private readonly abortListeners: (() => void)[] = [];
  private working = 0;
  private replied = false;
  private left = false;

  constructor(
    private readonly turns: Turns,
    private readonly key: string,
    private readonly response: ServerResponse,
  ) {}

  throwIfAborted(): void {
    if (this.aborted) throw clientLeft();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.abortListeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.abortListeners.indexOf(listener);
    if (index >= 0) this.abortListeners.splice(index, 1);
  }

  /** Runs the request's database `work`; the turn is not given back while work runs. */
  readonly atDatabase = async <T>(work: (disconnected: CancelSignal) => Promise<T>): Promise<T> => {
    this.working += 1;
    try {
      return await work(this);
    } finally {
      this.working -= 1;
      this.leaveWhenIdle();
    }
  };

  /** The request has been answered (onPreResponse), or its connection has closed. */
  readonly answered = (): void => {
    this.replied = true;
    this.leaveWhenIdle();
  };

  /** The response's 'close': a client that leaves before its response has its statement cancelled. */
  readonly closed = (): void => {
    if (!this.response.writableFinished && !this.aborted) {
      this.aborted = true;
      for (const listener of this.abortListeners.splice(0)) listener();
    }
    this.answered();
  };

  private leaveWhenIdle(): void {
    if (this.replied && this.working === 0 && !this.left) {
      this.left = true;
      this.turns.leave(this.key);
    }
  }
}

declare module '@hapi/hapi' {
  interface PluginsStates {
    /** The request's turn at the database, while it holds one. */
    turn?: Turn;
  }
}

/** The lifecycle methods a route whose handling uses the database takes: onPreAuth and onPreResponse. */
export function concurrencyGate(options: ConcurrencyGateOptions): {
  onPreAuth: Lifecycle.Method;
  onPreResponse: Lifecycle.Method;
} {
  const turns = new Turns(options);

  return {
    async onPreAuth(request, h) {
      const key = fairnessKeyOf(request.headers.authorization);
      const response = request.raw.res;
      await turns.enter(key, (listener) => response.once('close', listener));
      const turn = new Turn(turns, key, response);
      request.plugins.turn = turn;
      request.app.atDatabase = turn.atDatabase;
      // A client that leaves before its response may skip onPreResponse; its turn is given back all the
      // same, once its work has ended. 'close' comes once: `on`, not `once` (see Turn).
      response.on('close', turn.closed);
      return h.continue;
    },
    onPreResponse(request, h) {
      request.plugins.turn?.answered();
      return h.continue;
    },
  };
}
