// A request's turn at the database. It is held while the request's database work runs: a client that
// disconnects has its statement cancelled (db/cancellable.ts), and its turn is given back only once that
// statement has ended, so that the pool never has more statements running than turns given out.
import type { ServerResponse } from 'node:http';
import type { CancelSignal } from '../db/cancellable.js';
import type { Turns } from './turns.js';

/** Runs the request's database `work`, with a signal that aborts when the client disconnects. */
export type AtDatabase = <T>(work: (disconnected: CancelSignal) => Promise<T>) => Promise<T>;

/** Why a statement of a request whose client has left is refused: AbortSignal's own reason. */
function clientLeft(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A request's turn at the database, from its admission until it has been answered (or its client has
 * left) and its database work has ended; it is also the signal that cancels that work when the client
 * leaves (db/cancellable.ts). One plain object per request, on purpose: an AbortController per request,
 * or a `once` listener on the response, left garbage in V8's old generation that only full collections
 * reclaim (server/BENCHMARKS.md, "No garbage for full collections").
 */
export class Turn implements CancelSignal {
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
