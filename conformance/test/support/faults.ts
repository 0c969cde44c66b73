// The broken deployments the kit must catch: one rule broken per fault, each with the check named for it
// and the group of checks (a --grep) that runs it.
import type { Load, LoadPage } from '@loadfeed/spec';
import type { Answer, Fault } from './fault-proxy.js';

export interface FaultCase {
  name: string;
  /** The title of the check that must fail. */
  caughtBy: RegExp;
  /** The --grep that runs the check's group. */
  grep: string;
  exhaust?: boolean;
  /** A limit low enough for the exhaust check to reach its 429 quickly. */
  rateLimit?: number;
  fault: Fault | ((context: FaultContext) => Fault);
}

const YEAR_MS = 365 * 86_400_000;

function isPage(body: unknown): body is LoadPage {
  return typeof body === 'object' && body !== null && Array.isArray((body as LoadPage).data);
}

/** A fault that rewrites every 200 page of loads. */
function onPages(change: (page: LoadPage, url: URL, authorization: string | undefined) => LoadPage): Fault {
  return {
    response: (answer, url, authorization) =>
      answer.status === 200 && isPage(answer.body) ? { ...answer, body: change(answer.body, url, authorization) } : answer,
  };
}

function onRows(change: (row: Load) => Record<string, unknown>): Fault {
  return onPages((page) => ({ ...page, data: page.data.map(change) as Load[] }));
}

function onStatus(status: number, change: (answer: Answer, url: URL, authorization: string | undefined) => Answer): Fault {
  return { response: (answer, url, authorization) => (answer.status === status ? change(answer, url, authorization) : answer) };
}

function withoutHeader(answer: Answer, name: string): Answer {
  const { [name]: _dropped, ...headers } = answer.headers;
  return { ...answer, headers };
}

/** Each run of rows sharing one updatedAt, reversed in place. */
function reverseTies(rows: readonly Load[]): Load[] {
  const runs: Load[][] = [];
  for (const row of rows) {
    const run = runs.at(-1);
    if (run && run[0]!.updatedAt === row.updatedAt) run.push(row);
    else runs.push([row]);
  }
  return runs.flatMap((run) => run.reverse());
}

/** What a fault may need of the deployment: the keys of the run and a row of the other customer. */
export interface FaultContext {
  primaryKey: string;
  revokedKey: string;
  otherCustomersRow: Load;
}

/** A fault that adds a row to the pages the key under test gets. */
function slipIn(row: (context: FaultContext) => Load): (context: FaultContext) => Fault {
  return (context) =>
    onPages((page, _url, authorization) => (authorization === `Bearer ${context.primaryKey}` ? { ...page, data: [...page.data, row(context)] } : page));
}

export const FAULTS: readonly FaultCase[] = [
  {
    name: 'an extra property on every load',
    caughtBy: /no load has a property beyond/,
    grep: 'contract/',
    fault: onRows((row) => ({ ...row, internalId: 7 })),
  },
  {
    name: 'a nullable field left out instead of null',
    caughtBy: /every nullable field is present/,
    grep: 'contract/',
    fault: onRows(({ poNumber: _left, ...row }) => row),
  },
  {
    name: 'date-times without milliseconds',
    caughtBy: /millisecond precision and a Z suffix/,
    grep: 'contract/',
    fault: onRows((row) => ({ ...row, updatedAt: row.updatedAt.replace(/\.\d{3}Z$/, 'Z') })),
  },
  {
    name: 'X-RateLimit-Reset missing on 200',
    caughtBy: /are integers on every 200 and 400/,
    grep: 'rate-limit/',
    fault: onStatus(200, (answer) => withoutHeader(answer, 'x-ratelimit-reset')),
  },
  {
    name: 'X-RateLimit-Limit: 0 on responses that admitted the request',
    caughtBy: /X-RateLimit-Limit is at least 1/,
    grep: 'rate-limit/',
    fault: { response: (answer) => ('x-ratelimit-limit' in answer.headers ? { ...answer, headers: { ...answer.headers, 'x-ratelimit-limit': '0' } } : answer) },
  },
  {
    name: 'X-RateLimit-Remaining that does not fall',
    caughtBy: /Remaining falls by one/,
    grep: 'rate-limit/',
    fault: { response: (answer) => ('x-ratelimit-remaining' in answer.headers ? { ...answer, headers: { ...answer.headers, 'x-ratelimit-remaining': '500' } } : answer) },
  },
  {
    name: '401 bodies that differ by cause',
    caughtBy: /every 401 is the same whatever the cause/,
    grep: 'authentication/',
    fault: onStatus(401, (answer, _url, authorization) => (authorization === undefined ? { ...answer, body: { error: 'API key missing' } } : answer)),
  },
  {
    name: 'the poNumber filter ignored',
    caughtBy: /^poNumber matches exactly/,
    grep: 'filters/',
    fault: { request: (url) => url.searchParams.delete('poNumber') },
  },
  {
    // As a deployment that filters with LIKE 'value%': exact on every real value, as long as none is a
    // prefix of another. The proxy asks for every row and keeps those that start with the value.
    name: 'poNumber matched as a prefix',
    caughtBy: /^poNumber given a strict prefix/,
    grep: 'filters/',
    fault: {
      request: (url) => {
        if (!url.searchParams.has('poNumber')) return;
        url.searchParams.delete('poNumber');
        url.searchParams.set('pageSize', '100');
        url.searchParams.set('page', '1');
      },
      response: (answer, _url, _authorization, requested) => {
        const prefix = requested.searchParams.get('poNumber');
        if (prefix === null || answer.status !== 200 || !isPage(answer.body)) return answer;
        const data = answer.body.data.filter((row) => row.poNumber?.startsWith(prefix));
        return { ...answer, body: { ...answer.body, data, totalCount: data.length, hasMore: false } };
      },
    },
  },
  {
    name: 'status values AND-ed',
    caughtBy: /OR-combined/,
    grep: 'filters/',
    fault: onPages((page, url) => (url.searchParams.getAll('status').length > 1 ? { ...page, data: [], totalCount: 0, hasMore: false } : page)),
  },
  {
    name: 'updatedSince ignored',
    caughtBy: /a delta returns only rows updated at or after updatedSince/,
    grep: 'delta/',
    fault: { request: (url) => url.searchParams.delete('updatedSince') },
  },
  {
    // As a deployment that compares updatedAt > updatedSince: the rows stamped at the instant drop out.
    name: 'updatedSince exclusive',
    caughtBy: /updatedSince is inclusive/,
    grep: 'delta/',
    fault: {
      request: (url) => {
        const since = url.searchParams.get('updatedSince');
        if (since !== null && since.includes('T')) url.searchParams.set('updatedSince', new Date(Date.parse(since) + 1).toISOString());
      },
    },
  },
  {
    name: 'hasMore true on the last page',
    caughtBy: /hasMore is true on every page but the last/,
    grep: 'pagination/',
    fault: onPages((page) => (page.page * page.pageSize >= page.totalCount ? { ...page, hasMore: true } : page)),
  },
  {
    name: 'totalCount off by one',
    caughtBy: /add up to the first page's totalCount/,
    grep: 'pagination/',
    fault: onPages((page) => ({ ...page, totalCount: page.totalCount + 1 })),
  },
  {
    name: 'rows in reversed order',
    caughtBy: /ascending updatedAt order/,
    grep: 'pagination/',
    fault: onPages((page) => ({ ...page, data: [...page.data].reverse() })),
  },
  {
    // As a deployment that orders by updatedAt alone: the database breaks ties however the page's LIMIT
    // makes it, so a tied group comes in another order when a page boundary cuts it.
    name: 'tied rows ordered differently at each page size',
    caughtBy: /the same order at every page size/,
    grep: 'pagination/',
    fault: onPages((page) => ({ ...page, data: reverseTies(page.data) })),
  },
  {
    name: 'the requested pageSize echoed unclamped',
    caughtBy: /a pageSize above the maximum clamps/,
    grep: 'pagination/',
    fault: onPages((page, url) => ({ ...page, pageSize: Number(url.searchParams.get('pageSize') ?? page.pageSize) })),
  },
  {
    name: 'a 400 without details',
    caughtBy: /an unparseable updatedSince .* gets 400 with details/,
    grep: 'errors/',
    fault: onStatus(400, (answer) => ({ ...answer, body: { error: (answer.body as { error: string }).error } })),
  },
  {
    name: 'a 429 without Retry-After',
    caughtBy: /going past the limit gives 429 with Retry-After/,
    grep: 'rate-limit/exhaust',
    exhaust: true,
    rateLimit: 3,
    fault: onStatus(429, (answer) => withoutHeader(answer, 'retry-after')),
  },
  {
    name: 'a revoked key still accepted',
    caughtBy: /^a revoked key gets 401/,
    grep: 'authentication/',
    fault: (context) => ({
      request: (_url, authorization) => (authorization === `Bearer ${context.revokedKey}` ? `Bearer ${context.primaryKey}` : authorization),
    }),
  },
  {
    name: "another customer's row leaked",
    caughtBy: /keys see disjoint sets of loadNumbers/,
    grep: 'isolation/',
    fault: slipIn((context) => context.otherCustomersRow),
  },
  {
    name: 'a row outside the 12-month window',
    caughtBy: /scheduled to pick up within the last 12 months/,
    grep: 'window/',
    fault: slipIn((context) => ({ ...context.otherCustomersRow, loadNumber: 'AGED-0001', scheduledPickupDate: new Date(Date.now() - 2 * YEAR_MS).toISOString() })),
  },
];
