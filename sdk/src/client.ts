// createClient: openapi-fetch over the generated `paths`, with the key in the Authorization header, a
// fetch composed of small layers beneath it (retries over pacing over a timeout over the transport, which
// reads each body whole), and every error status turned into one class of the error tree.
import createFetchClient, { type Middleware } from 'openapi-fetch';
import { LIST_LOADS_PATH, REQUEST_ID_HEADER, RESPONSE_DATE_TIME, type ListLoadsQuery, type Load, type LoadPage, type paths, type Violation } from '@loadfeed/spec';
import { systemClock, type Clock } from './clock.js';
import { AbortError, ContractError, errorFromResponse } from './errors.js';
import { checkOptions, must, withDefaults, type Schema } from './options.js';
import { createPacer, withPacing, type QuotaSnapshot } from './pacing.js';
import { DEFAULT_RETRY_POLICY, RETRY_POLICY_SCHEMA, withRetries, type AttemptEvents, type RetryPolicy } from './retry.js';
import { withTimeout } from './timeout.js';
import { wholeResponses, type AttemptFetch, type CallLimits } from './transport.js';

export type ListLoadsParams = ListLoadsQuery;
export type LoadRow = Load & { createdAt?: string };
export type Page = Omit<LoadPage, 'data'> & { data: LoadRow[] };

export interface ClientOptions {
  /** The deployment's root, e.g. `https://loads.example.com` (the client adds `/api/v1/...`). */
  baseUrl: string;
  /** `lf_live_...`; sent only in the Authorization header, never in a URL or a log. */
  apiKey: string;
  /** The fetch each attempt goes through (defaults to the global one). */
  fetch?: (request: Request) => Promise<Response>;
  userAgent?: string;
  /** Per attempt: no whole response (headers and body) within this many ms is a TimeoutError (retried like a 5xx). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Aborts every request and every wait of this client. */
  signal?: AbortSignal;
  /** Observes attempts, retries and quota waits; sees no header, so it never sees the key. */
  logger?: AttemptEvents;
  /** openapi-fetch middleware; each sees one logical request, however many attempts it took. */
  middleware?: Middleware[];
  clock?: Clock;
  /** The source of backoff jitter, in [0, 1). */
  random?: () => number;
}

export interface CallOptions extends CallLimits {}

export interface ClientStats {
  /** HTTP attempts sent, retries included. */
  requests: number;
  /** Milliseconds spent waiting for the rate limit before requests. */
  quotaWaitMs: number;
  /** Milliseconds spent waiting before retries (backoff after failures, Retry-After after 429s). */
  retryWaitMs: number;
}

export interface LoadfeedClient {
  /** One page, typed. Throws an error of the tree for every non-200. */
  listLoads(params?: ListLoadsParams, options?: CallOptions): Promise<Page>;
  /** Pages from `params.page` (default 1) while `hasMore` says there are more. */
  pages(params?: ListLoadsParams, options?: CallOptions): AsyncGenerator<Page, void, undefined>;
  /** The rows of `pages(params)`, one by one. */
  loads(params?: ListLoadsParams, options?: CallOptions): AsyncGenerator<LoadRow, void, undefined>;
  quota(): QuotaSnapshot;
  stats(): ClientStats;
  /** The server's clock now, as far as the `Date` headers tell (never ahead of it). */
  serverNow(): number;
  readonly clock: Clock;
}

const USER_AGENT = '@loadfeed/sdk';

/** What each option of createClient must be; undefined means the default. */
const CLIENT_OPTIONS: Schema = {
  baseUrl: must.httpUrl,
  apiKey: must.nonEmptyString,
  fetch: must.function,
  userAgent: must.string,
  timeoutMs: must.milliseconds(1),
  retry: must.object,
  signal: must.abortSignal,
  logger: must.object,
  middleware: must.array,
  clock: must.methods('now', 'sleep'),
  random: must.function,
};

const LOGGER_OPTIONS: Schema = { onRequest: must.function, onResponse: must.function, onRetry: must.function, onWait: must.function };

export function createClient(options: ClientOptions): LoadfeedClient {
  checkOptions('createClient', options, CLIENT_OPTIONS, ['baseUrl', 'apiKey'], { retry: RETRY_POLICY_SCHEMA, logger: LOGGER_OPTIONS });
  const clock = options.clock ?? systemClock;
  const pacer = createPacer(clock);
  const stats: ClientStats = { requests: 0, quotaWaitMs: 0, retryWaitMs: 0 };
  const logger = options.logger ?? {};
  const transport = wholeResponses(options.fetch ?? ((request: Request) => globalThis.fetch(request)));
  const timed = options.timeoutMs === undefined ? transport : withTimeout(transport, { clock, timeoutMs: options.timeoutMs });
  const paced = withPacing(observeAttempts(timed, clock, stats, logger), {
    pacer,
    clock,
    onWait(event) {
      stats.quotaWaitMs += event.delayMs;
      logger.onWait?.({ delayMs: event.delayMs, until: event.until });
    },
  });
  const send = withRetries(paced, {
    policy: withDefaults(DEFAULT_RETRY_POLICY, options.retry),
    clock,
    random: options.random ?? Math.random,
    onRetry(event) {
      stats.retryWaitMs += event.delayMs;
      logger.onRetry?.(event);
    },
  });
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      Authorization: `Bearer ${options.apiKey}`,
      'User-Agent': options.userAgent ? `${options.userAgent} ${USER_AGENT}` : USER_AGENT,
    },
  });
  for (const middleware of options.middleware ?? []) api.use(middleware);

  async function listLoads(params: ListLoadsParams = {}, call: CallOptions = {}): Promise<Page> {
    const signal = combineSignals(options.signal, call.signal);
    if (signal?.aborted) throw AbortError.from(signal);
    const { data, error, response } = await api.GET(LIST_LOADS_PATH, {
      params: { query: params },
      ...(signal ? { signal } : {}),
      fetch: (request: Request) => send(request, { ...call, signal }),
    });
    if (error !== undefined || !response.ok) throw errorFromResponse(response.status, response.headers, error, clock.now());
    const violations = pageViolations(data);
    if (violations.length > 0) throw new ContractError(violations, { status: response.status, headers: response.headers });
    return data as Page;
  }

  async function* pages(params: ListLoadsParams = {}, call: CallOptions = {}): AsyncGenerator<Page, void, undefined> {
    for (let page = params.page ?? 1; ; page += 1) {
      const result = await listLoads({ ...params, page }, call);
      yield result;
      if (!result.hasMore) return;
    }
  }

  async function* loads(params: ListLoadsParams = {}, call: CallOptions = {}): AsyncGenerator<LoadRow, void, undefined> {
    for await (const page of pages(params, call)) yield* page.data;
  }

  return {
    listLoads,
    pages,
    loads,
    quota: () => pacer.snapshot(),
    stats: () => ({ ...stats }),
    serverNow: () => pacer.serverNow(),
    clock,
  };
}

/**
 * What the SDK cannot work without: the envelope's fields, and in every row a `loadNumber` (the upsert
 * key) and an `updatedAt` in SPEC's one date-time shape (the cursor). Other fields pass through as the server sent them, `createdAt`
 * included; the full schema check is @loadfeed/spec/validate's `checkLoadPage`, for those who want it.
 */
function pageViolations(body: unknown): Violation[] {
  if (typeof body !== 'object' || body === null) return [{ path: '/', message: 'must be a page envelope' }];
  const page = body as Record<string, unknown>;
  const violations: Violation[] = [];
  if (!Array.isArray(page.data)) violations.push({ path: '/data', message: 'must be an array' });
  if (typeof page.hasMore !== 'boolean') violations.push({ path: '/hasMore', message: 'must be a boolean' });
  if (typeof page.totalCount !== 'number') violations.push({ path: '/totalCount', message: 'must be a number' });
  if (typeof page.pageSize !== 'number') violations.push({ path: '/pageSize', message: 'must be a number' });
  if (!Array.isArray(page.data)) return violations;
  page.data.forEach((row: unknown, index) => {
    const record = typeof row === 'object' && row !== null ? (row as Record<string, unknown>) : {};
    if (typeof record.loadNumber !== 'string' || record.loadNumber === '') {
      violations.push({ path: `/data/${index}/loadNumber`, message: 'is required: it is the row identity to upsert on' });
    }
    // The sync compares cursors as text, which is exact because every updatedAt has this one shape.
    if (typeof record.updatedAt !== 'string' || !RESPONSE_DATE_TIME.test(record.updatedAt)) {
      violations.push({ path: `/data/${index}/updatedAt`, message: 'must be a UTC date-time with milliseconds and Z: it is the sync cursor' });
    }
  });
  return violations;
}

/** Counts each attempt that goes out and tells the logger about it and its status. */
function observeAttempts(inner: AttemptFetch, clock: Clock, stats: ClientStats, logger: AttemptEvents): AttemptFetch {
  return async (request, context) => {
    // Events are built only for a logger that listens: this runs once per attempt of every page.
    if (logger.onRequest) logger.onRequest({ method: request.method, url: request.url, attempt: context.attempt });
    stats.requests += 1;
    const sentAt = clock.now();
    const response = await inner(request, context);
    if (logger.onResponse) {
      logger.onResponse({
        method: request.method,
        url: request.url,
        attempt: context.attempt,
        status: response.status,
        requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
        durationMs: clock.now() - sentAt,
      });
    }
    return response;
  };
}

function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}


