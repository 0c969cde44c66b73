// One error tree for everything the client can throw. The status-to-class mapping lives in exactly one
// function (`errorFromResponse`), and every error carries the status, the headers and the request id.
import { integerHeaderValue, REQUEST_ID_HEADER, RETRY_AFTER_HEADER, type ErrorBody, type Violation } from '@loadfeed/spec';


export interface ErrorContext {
  status?: number;
  headers?: Headers;
  cause?: unknown;
}

/** The root of every error the SDK throws. */
export class LoadfeedError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers;
  /** The server's `X-Request-Id`, to quote when asking the operator about a request. */
  readonly requestId: string | undefined;

  constructor(message: string, context: ErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.status = context.status;
    this.headers = context.headers ?? new Headers();
    this.requestId = this.headers.get(REQUEST_ID_HEADER) ?? undefined;
  }
}

/** The server answered with an error status. */
export class ApiError extends LoadfeedError {
  declare readonly status: number;
  readonly body: ErrorBody | undefined;

  constructor(message: string, status: number, headers: Headers, body: ErrorBody | undefined) {
    super(message, { status, headers });
    this.body = body;
  }
}

/** 400: the query was invalid; `details` has one message per problem. */
export class BadRequestError extends ApiError {
  get details(): string[] {
    return this.body?.details ?? [];
  }
}

/** 401: the key is missing, malformed, unknown or revoked (the server does not say which). */
export class AuthenticationError extends ApiError {}

/** 429: the key's rate limit is exceeded. */
export class RateLimitError extends ApiError {
  /** Seconds the server asked us to wait (`Retry-After`). */
  readonly retryAfter: number | undefined;
  /** When a request will be admitted again, in epoch ms on our clock. */
  readonly resumeAt: number | undefined;

  constructor(message: string, status: number, headers: Headers, body: ErrorBody | undefined, now: number) {
    super(message, status, headers, body);
    this.retryAfter = retryAfterSeconds(headers);
    this.resumeAt = this.retryAfter === undefined ? undefined : now + this.retryAfter * 1000;
  }
}

/** 5xx: the server failed. */
export class ServerError extends ApiError {}

/** No response: the connection failed or was reset. */
export class ConnectionError extends LoadfeedError {
  /** Whether a response had begun (its headers came) before the connection failed: then something speaking HTTP answered. */
  readonly responseStarted: boolean;

  constructor(message: string, context: ErrorContext & { responseStarted?: boolean } = {}) {
    super(message, context);
    this.responseStarted = context.responseStarted ?? false;
  }
}

/** No response within the client's `timeoutMs`. */
export class TimeoutError extends LoadfeedError {}

/** The caller's AbortSignal aborted the request or a wait. */
export class AbortError extends LoadfeedError {
  static from(signal: AbortSignal): AbortError {
    return new AbortError('the operation was aborted', { cause: signal.reason });
  }
}

/** A response broke the contract in a way the SDK cannot work around (for example a row without loadNumber). */
export class ContractError extends LoadfeedError {
  readonly violations: Violation[];

  constructor(violations: Violation[], context: ErrorContext = {}) {
    super(`the response breaks the contract:\n${violations.map((v) => `  ${v.path}: ${v.message}`).join('\n')}`, context);
    this.violations = violations;
  }
}

/** The response's body is larger than the client's `maxResponseBytes`: refused while it streams, never retried. */
export class ResponseTooLargeError extends LoadfeedError {
  /** The client's cap, in bytes. */
  readonly limitBytes: number;

  constructor(message: string, limitBytes: number, context: ErrorContext = {}) {
    super(message, context);
    this.limitBytes = limitBytes;
  }
}

/** The server asked for a wait (`Retry-After`, or an `X-RateLimit-Reset`) longer than the client's `retry.maxWaitMs`. */
export class WaitTooLongError extends LoadfeedError {
  /** The wait the server asked for, in ms. */
  readonly requestedMs: number;
  /** The client's cap, in ms. */
  readonly limitMs: number;
  /** The header that asked for it, as the server sent it: `Retry-After: 999999999`. */
  readonly askedBy: string;

  constructor(message: string, details: { requestedMs: number; limitMs: number; askedBy: string }, context: ErrorContext = {}) {
    super(message, context);
    this.requestedMs = details.requestedMs;
    this.limitMs = details.limitMs;
    this.askedBy = details.askedBy;
  }
}

/** A sync stopped because the server's answers would never let it finish (the same pages again, a count it walks past). */
export class NoProgressError extends LoadfeedError {}

/** The server redirected the request to another origin; the base URL has moved, or something else answers there. */
export class RedirectError extends LoadfeedError {
  /** Where the redirect pointed, when the runtime says (a browser does not). */
  readonly location: string | undefined;

  constructor(message: string, location: string | undefined, context: ErrorContext = {}) {
    super(message, context);
    this.location = location;
  }
}

/**
 * A request failed in a way a wrong base URL causes, and a request for the OpenAPI document (which needs
 * no key) showed that the base URL is the mistake: `problem` says what answered there, `suggestion` the
 * base URL to use when one was found. The failure itself is the `cause`.
 */
export class BaseUrlError extends LoadfeedError {
  readonly problem: string;
  readonly suggestion: string | undefined;

  constructor(problem: string, suggestion: string | undefined, context: ErrorContext = {}) {
    super(`the base URL is wrong: ${problem}${suggestion === undefined ? '' : `; set baseUrl to ${suggestion}`}`, context);
    this.problem = problem;
    this.suggestion = suggestion;
  }
}

/** `Retry-After` as whole seconds, when the header is a number. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  return integerHeaderValue(headers.get(RETRY_AFTER_HEADER));
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
}

/** The one place a status becomes an error class. `now` stamps when a rate limit lifts. */
export function errorFromResponse(status: number, headers: Headers, body: unknown, now: number): ApiError {
  const errorBody = isErrorBody(body) ? body : undefined;
  const message = `${status}: ${errorBody?.error ?? 'the server answered with an error'}`;
  if (status === 400) return new BadRequestError(message, status, headers, errorBody);
  if (status === 401) return new AuthenticationError(message, status, headers, errorBody);
  if (status === 429) {
    const seconds = retryAfterSeconds(headers);
    const resume = seconds === undefined ? '' : `; resume at ${new Date(now + seconds * 1000).toISOString()} (Retry-After ${seconds}s)`;
    return new RateLimitError(message + resume, status, headers, errorBody, now);
  }
  if (status >= 500) return new ServerError(message, status, headers, errorBody);
  return new ApiError(message, status, headers, errorBody);
}
