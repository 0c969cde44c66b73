// createClient: openapi-fetch over the generated `paths`, with the key in the Authorization header, a
// fetch composed of small layers beneath it (retries over pacing over a timeout over the transport, which
// reads each body whole, up to a size cap, and follows redirects only within the origin), every error
// status turned into one class of the error tree, and every page checked before it is handed out.
import createFetchClient, { type Middleware } from 'openapi-fetch';
import { LIST_LOADS_PATH, REQUEST_ID_HEADER, type ListLoadsQuery, type Load, type LoadPage, type paths } from '@loadfeed/spec';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body-limit.js';
import { systemClock, type Clock } from './clock.js';
import { baseUrlCheck } from './base-url-check.js';
import { pageViolations, updatedAtBounds } from './envelope-check.js';
import { AbortError, ContractError, errorFromResponse } from './errors.js';
import { checkOptions, must, withDefaults, type Schema } from './options.js';
import { createPacer, withPacing, type QuotaSnapshot } from './pacing.js';
import { DEFAULT_RETRY_POLICY, RETRY_POLICY_SCHEMA, withRetries, type AttemptEvents, type RetryPolicy } from './retry.js';
import { recordSettledThrough } from './settled-through.js';
import { DEFAULT_TIMEOUT_MS, withTimeout } from './timeout.js';
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
  /**
   * Per attempt: no whole response (headers and body) within this many ms, on the client's clock, is a
   * TimeoutError (retried like a 5xx). Default: 30 s of real time.
   */
  timeoutMs?: number;
  /** The largest response body read, in bytes; a larger one is a ResponseTooLargeError, not retried. Default 32 MiB. */
  maxResponseBytes?: number;
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
  maxResponseBytes: must.integer(1),
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
  const policy = withDefaults(DEFAULT_RETRY_POLICY, options.retry);
  const fetchOne = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const explainFailure = baseUrlCheck(options.baseUrl, fetchOne);
  const transport = wholeResponses(fetchOne, {
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  });
  // A timeout given is kept on the client's clock (a test can run it in simulated time). The default is
  // real time whatever the clock: it guards a real socket, and a simulated clock, whose time moves only
  // when something sleeps on it, must not be moved, nor its sleepers counted, by a guard on every request.
  const timed =
    options.timeoutMs === undefined ? withTimeout(transport, { clock: systemClock, timeoutMs: DEFAULT_TIMEOUT_MS }) : withTimeout(transport, { clock, timeoutMs: options.timeoutMs });
  const paced = withPacing(observeAttempts(timed, clock, stats, logger), {
    pacer,
    clock,
    maxWaitMs: policy.maxWaitMs,
    onWait(event) {
      stats.quotaWaitMs += event.delayMs;
      logger.onWait?.({ delayMs: event.delayMs, until: event.until });
    },
  });
  const send = withRetries(paced, {
    policy,
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

  // A failure that a wrong base URL explains is raised as that mistake (base-url-check.ts), as `loadfeed` says it.
  async function listLoads(params: ListLoadsParams = {}, call: CallOptions = {}): Promise<Page> {
    try {
      return await listLoadsOnce(params, call);
    } catch (error) {
      throw await explainFailure(error);
    }
  }

  async function listLoadsOnce(params: ListLoadsParams, call: CallOptions): Promise<Page> {
    const signal = combineSignals(options.signal, call.signal);
    if (signal?.aborted) throw AbortError.from(signal);
    const answer = await api
      .GET(LIST_LOADS_PATH, {
        params: { query: params },
        // Redirects are the transport's to follow, within the origin only (redirects.ts).
        redirect: 'manual',
        ...(signal ? { signal } : {}),
        fetch: (request: Request) => send(request, { ...call, signal }),
      })
      .catch((error: unknown) => {
        // A body that is not JSON at all (a web page where the API should be) is off the contract, in the error tree.
        if (error instanceof SyntaxError) throw new ContractError([{ path: '/', message: `must be a JSON page envelope (${error.message})` }], { cause: error });
        throw error;
      });
    const { data, error, response } = answer;
    if (error !== undefined || !response.ok) throw errorFromResponse(response.status, response.headers, error, clock.now());
    const bounds = updatedAtBounds(params, response.headers, pacer.serverNow());
    const violations = pageViolations(data, params.page ?? 1, bounds);
    if (violations.length > 0) throw new ContractError(violations, { status: response.status, headers: response.headers });
    // Every row was checked against the header, so the page keeps it: a sync's page-number stretches rely on it.
    if (bounds.settledThrough !== undefined) recordSettledThrough(data as Page, bounds.settledThrough);
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


