// createClient: openapi-fetch over the generated `paths`, with the key in the Authorization header, the
// retrying and pacing fetch beneath it, and every error status turned into one class of the error tree.
import createFetchClient, { type Middleware } from 'openapi-fetch';
import { LIST_LOADS_PATH, RESPONSE_DATE_TIME, type ListLoadsQuery, type Load, type LoadPage, type paths, type Violation } from '@loadfeed/spec';
import { systemClock, type Clock } from './clock.js';
import { AbortError, ContractError, errorFromResponse } from './errors.js';
import { createPacer, type QuotaSnapshot } from './pacing.js';
import { DEFAULT_RETRY_POLICY, createRetryingFetch, type AttemptEvents, type CallLimits, type RetryPolicy } from './retry.js';

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
  /** Per attempt: no response headers within this many ms is a TimeoutError (retried like a 5xx). */
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

export function createClient(options: ClientOptions): LoadfeedClient {
  if (!options.baseUrl) throw new TypeError('createClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
  const clock = options.clock ?? systemClock;
  const pacer = createPacer(clock);
  const stats: ClientStats = { requests: 0, quotaWaitMs: 0 };
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retryingFetch = createRetryingFetch({
    fetch: baseFetch,
    clock,
    pacer,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    random: options.random ?? Math.random,
    timeoutMs: options.timeoutMs,
    events: options.logger ?? {},
    count(kind, amount) {
      if (kind === 'request') stats.requests += amount;
      else stats.quotaWaitMs += amount;
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
      fetch: (request: Request) => retryingFetch(request, { signal, deadline: call.deadline }),
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
 * included; the full schema check is @loadfeed/spec's `checkLoadPage`, for those who want it.
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

function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}


