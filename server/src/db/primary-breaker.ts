// The primary's circuit breaker: while the primary fails its check (db/database-check.ts), requests that
// need it get SPEC's 500 at once instead of each waiting for a connection that cannot come (through
// PgBouncer, up to its query_wait_timeout); the next check that gets an answer closes it again. A route
// that uses the primary takes `refuseWhileOpen` as its first onPreAuth step, so no request waits for a
// turn at the database (admission/concurrency-gate.ts) only to fail.
import Boom from '@hapi/boom';
import type { Lifecycle } from '@hapi/hapi';
import type { Logger } from 'pino';

export class PrimaryBreaker {
  private primaryAnswers = true;

  constructor(private readonly logger?: Logger | undefined) {}

  /** Whether the primary failed its last check. */
  isOpen(): boolean {
    return !this.primaryAnswers;
  }

  /** Records what the primary's check found; the log hears when that changes. */
  record(answers: boolean, error?: unknown): void {
    if (this.primaryAnswers && !answers) this.logger?.error({ err: error }, 'the primary database does not answer; requests get a 500 until it does');
    if (!this.primaryAnswers && answers) this.logger?.info('the primary database answers again');
    this.primaryAnswers = answers;
  }

  /** A route's lifecycle step: SPEC's 500 while the breaker is open. */
  readonly refuseWhileOpen: Lifecycle.Method = (_request, h) => {
    if (this.isOpen()) throw Boom.internal('the primary database does not answer');
    return h.continue;
  };
}
