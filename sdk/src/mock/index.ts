// @loadfeed/sdk/mock: msw handlers over one customer's in-memory dataset that answer like the Customer
// Data API — the 12-month window, filters, order, pagination and clamping, the rate limit and its headers,
// 400/401/429 with SPEC's bodies — so that sync code can be tested offline, and the dataset can change
// between two requests to reproduce page skew.
import { http, type HttpHandler } from 'msw';
import { API_KEY_PREFIX, DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, feedWindowStart, LIST_LOADS_PATH, loadMatcher, OPENAPI_PATH, RESPONSE_HEADERS, type Load, type LoadFilters, type LoadInput, type LoadPage } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import { systemClock, type Clock } from '../clock.js';
import { createDataset, type Dataset, type StoredLoad, type WriteSummary } from './dataset.js';
import { rawQueryOf, readListLoadsQuery } from '@loadfeed/spec/query';
import { createRateWindow } from './rate-window.js';

export { createSimulatedClock } from './simulated-clock.js';
export type { SimulatedClock, SimulatedClockOptions } from './simulated-clock.js';
export type { WriteSummary } from './dataset.js';
export type { LoadInput } from '@loadfeed/spec';

export const MOCK_BASE_URL = 'https://api.loadfeed.test';
export const MOCK_API_KEY = `${API_KEY_PREFIX}mockmockmockmockmockmockmockmock`;

export interface MockApiOptions {
  /** Where the handlers answer (default MOCK_BASE_URL). */
  baseUrl?: string;
  /** Accepted keys, each with an optional own limit (default: MOCK_API_KEY alone). */
  keys?: Record<string, { rateLimit?: number }>;
  /** The limit of keys without their own (default DEFAULT_RATE_LIMIT a minute, as SPEC §8). */
  rateLimitPerMinute?: number;
  /** The server's maximum page size; larger requests clamp to it (default DEFAULT_MAX_PAGE_SIZE, as the reference server's). */
  maxPageSize?: number;
  /** The mock's time source (default the system clock). */
  clock?: Clock;
  /** How far the server's clock is ahead of `clock` (negative: behind); shows in Date and the rate headers. */
  serverClockOffsetMs?: number;
  /**
   * Whether responses say how far the feed is settled (`X-Feed-Settled-Through`), as the reference server's
   * do (default true); false answers like a deployment that does not say.
   */
  settledThroughHeader?: boolean;
  /** Loads present from the start, written as one write. */
  loads?: readonly LoadInput[];
}

export interface MockApi {
  readonly baseUrl: string;
  /** msw handlers: `setupServer(...mock.handlers)` in Node, or `setupWorker` in a browser. */
  readonly handlers: HttpHandler[];
  /** A fetch that answers through the handlers without intercepting anything: pass it as the client's `fetch`. */
  fetch(request: Request): Promise<Response>;
  /** Upserts by loadNumber as ONE write (one updatedAt for every row it inserts or changes). */
  upsert(loads: readonly LoadInput[]): WriteSummary;
  remove(loadNumbers: readonly string[]): number;
  /** The rows the API serves now, in its order (inside the 12-month window). */
  loads(): Load[];
  /** Runs before each listLoads request is answered: mutate the dataset here to reproduce skew. */
  beforeRequest(hook: ((request: Request) => void | Promise<void>) | undefined): void;
  /** The server's clock. */
  serverNow(): number;
  /** Requests answered, and how many of them were 429s. */
  readonly stats: { requests: number; rateLimited: number };
}

function firstAtOrAfter(rows: readonly StoredLoad[], instant: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]!.updatedAtMs < instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function createMockApi(options: MockApiOptions = {}): MockApi {
  const baseUrl = (options.baseUrl ?? MOCK_BASE_URL).replace(/\/+$/, '');
  const clock = options.clock ?? systemClock;
  const offset = options.serverClockOffsetMs ?? 0;
  const serverNow = () => clock.now() + offset;
  const keys = options.keys ?? { [MOCK_API_KEY]: {} };
  const defaultLimit = options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT;
  const maxPageSize = options.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE;
  const dataset: Dataset = createDataset(serverNow);
  const rateWindow = createRateWindow();
  const stats = { requests: 0, rateLimited: 0 };
  let hook: ((request: Request) => void | Promise<void>) | undefined;
  if (options.loads && options.loads.length > 0) dataset.upsert(options.loads);

  // The rows inside the window, rebuilt only when the data or the day changes.
  let visible: { version: number; start: number; rows: StoredLoad[] } | undefined;
  function visibleRows(): StoredLoad[] {
    const start = feedWindowStart(new Date(serverNow())).getTime();
    if (!visible || visible.version !== dataset.version || visible.start !== start) {
      const rows = dataset.ordered().filter((row) => {
        const pickup = row.load.scheduledPickupDate;
        return pickup !== null && Date.parse(pickup) >= start;
      });
      visible = { version: dataset.version, start, rows };
    }
    return visible.rows;
  }

  function page(query: LoadFilters): LoadPage {
    const rows = visibleRows();
    // The rows are in updatedAt order: updatedSince is where they start; the other filters test each row.
    const from = query.updatedSince === undefined ? 0 : firstAtOrAfter(rows, Date.parse(query.updatedSince));
    const matches = loadMatcher(query, ['updatedSince']);
    const offsetRows = (query.page - 1) * query.pageSize;
    let data: Load[];
    let totalCount: number;
    if (!matches) {
      totalCount = rows.length - from;
      data = rows.slice(from + offsetRows, from + offsetRows + query.pageSize).map((row) => row.load);
    } else {
      data = [];
      totalCount = 0;
      for (let index = from; index < rows.length; index += 1) {
        const load = rows[index]!.load;
        if (!matches(load)) continue;
        if (totalCount >= offsetRows && data.length < query.pageSize) data.push(load);
        totalCount += 1;
      }
    }
    return { data, page: query.page, pageSize: query.pageSize, totalCount, hasMore: offsetRows + data.length < totalCount };
  }

  function respond(status: number, body: unknown, headers: Record<string, string> = {}): Response {
    return new Response(JSON.stringify(body), {
      status,
      headers: {
        'Content-Type': 'application/json',
        ...headers,
        // Web Crypto, not node:crypto: the mock also runs in a browser (setupWorker).
        [RESPONSE_HEADERS.requestId]: crypto.randomUUID(),
        Date: new Date(serverNow()).toUTCString(),
      },
    });
  }

  async function listLoads(request: Request): Promise<Response> {
    await hook?.(request);
    stats.requests += 1;
    const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
    const key = match?.[1];
    if (key === undefined || !Object.hasOwn(keys, key)) {
      return respond(401, { error: 'A valid API key is required: send Authorization: Bearer <key>' }, { 'WWW-Authenticate': 'Bearer' });
    }
    const limit = keys[key]!.rateLimit ?? defaultLimit;
    const decision = rateWindow.count(key, limit, serverNow());
    if (!decision.admitted) {
      stats.rateLimited += 1;
      return respond(429, { error: 'Rate limit exceeded; retry after the number of seconds in Retry-After' }, decision.headers);
    }
    const parsed = readListLoadsQuery(rawQueryOf(new URL(request.url).searchParams), maxPageSize);
    if ('details' in parsed) return respond(400, { error: 'Invalid query parameters', details: parsed.details }, decision.headers);
    // The mock's writes are visible the moment they happen and each is stamped after the latest and at or
    // after the clock, so everything up to the later of the latest stamp and a millisecond ago is settled.
    const settledThrough = new Date(Math.max(dataset.latestStamp, serverNow() - 1)).toISOString();
    const settled: Record<string, string> = options.settledThroughHeader === false ? {} : { [RESPONSE_HEADERS.feedSettledThrough]: settledThrough };
    return respond(200, page(parsed.filters), { ...decision.headers, ...settled });
  }

  // One answer per path, reached both through msw (handlers) and directly (fetch), so that a test that
  // needs no interception pays nothing for it.
  const routes = new Map<string, (request: Request) => Response | Promise<Response>>([
    [OPENAPI_PATH, () => respond(200, openApiDocument)],
    [LIST_LOADS_PATH, listLoads],
  ]);
  const handlers: HttpHandler[] = [...routes].map(([path, answer]) => http.get(`${baseUrl}${path}`, ({ request }) => answer(request)));

  return {
    baseUrl,
    handlers,
    async fetch(request) {
      const url = new URL(request.url);
      const answer = url.origin === new URL(baseUrl).origin && request.method === 'GET' ? routes.get(url.pathname) : undefined;
      return answer ? answer(request) : respond(404, { error: 'Not found' });
    },
    upsert: (loads) => dataset.upsert(loads),
    remove: (loadNumbers) => dataset.remove(loadNumbers),
    loads: () => visibleRows().map((row) => row.load),
    beforeRequest(next) {
      hook = next;
    },
    serverNow,
    stats,
  };
}
