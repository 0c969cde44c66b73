// A second deployment of SPEC.md, written from SPEC.md alone on node:http with the rows in memory, that
// decides differently wherever SPEC.md is silent, so that the kit is seen to fail only what SPEC.md states:
// - its OpenAPI document names the server `/api/v1` and the path `/loads` (OpenAPI's own way to put a base
//   path in the server URL) and reaches the Load schema through $refs;
// - it ignores unknown query parameters and empty values, and takes the last of a repeated one;
// - an unknown path is a plain-text 404, and another method on the loads is a 404 too (no 405);
// - a 401 carries no WWW-Authenticate, and the scheme name must be written "Bearer";
// - a date alone is that day in Chicago, and a date-time without an offset is read as UTC;
// - every load carries a createdAt (SPEC §2 allows it); no X-Request-Id.
// What SPEC.md states, it keeps: the envelope and the 23 fields, the order, clamping at 100, the filters,
// the 12-month window, the rolling window per key (RATE_WINDOW_MS) with its headers, 400 with details, 401, 429.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PAGE_SIZE, LIST_LOADS_PATH, LOAD_FIELDS, LOAD_STATUSES, OPENAPI_PATH, RATE_WINDOW_MS, type Load } from '@loadfeed/spec';
import { openApiDocument } from '@loadfeed/spec/document';
import type { LoadInput } from '@loadfeed/server/testing';

const MAX_PAGE_SIZE = 100;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;
const DATE_FILTERS = ['pickupFrom', 'pickupTo', 'deliveryFrom', 'deliveryTo'] as const;

interface Row {
  id: number;
  customer: string;
  load: Load;
  createdAt: string;
}

export interface IndependentDeployment {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The contract's document as this deployment lays it out: server `/api/v1`, path `/loads`, the page schema behind one more $ref. */
function document(): unknown {
  const contract = structuredClone(openApiDocument) as Record<string, any>;
  const pathItem = contract.paths[LIST_LOADS_PATH];
  contract.servers = [{ url: '/api/v1', description: 'this deployment' }];
  contract.paths = { [LIST_LOADS_PATH.slice('/api/v1'.length)]: { $ref: '#/components/pathItems/Loads' } };
  contract.components.pathItems = { Loads: pathItem };
  return contract;
}

/** A date or a date-time parameter as an instant; a date alone is that day's midnight in Chicago (or its end, for an upper bound). */
function instantOf(value: string, upper: boolean): number | undefined {
  if (DATE.test(value)) {
    const midnight = Date.parse(`${value}T00:00:00-06:00`);
    return upper ? midnight + 86_400_000 - 1 : midnight;
  }
  if (!DATE_TIME.test(value)) return undefined;
  const instant = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(instant) ? undefined : instant;
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export async function startIndependentDeployment(customers: Record<string, { key: string; loads: readonly LoadInput[]; stamps: ReadonlyMap<string, Date> }>, rateLimit: number): Promise<IndependentDeployment> {
  const rows: Row[] = [];
  const keys = new Map<string, string>();
  for (const [customer, { key, loads, stamps }] of Object.entries(customers)) {
    keys.set(key, customer);
    for (const input of loads) {
      const load = Object.fromEntries(LOAD_FIELDS.map((field) => [field, (input as Record<string, unknown>)[field] ?? null])) as Load;
      load.updatedAt = (stamps.get(input.loadNumber) ?? new Date(0)).toISOString();
      rows.push({ id: rows.length + 1, customer, load, createdAt: new Date(Date.parse(load.updatedAt) - 3_600_000).toISOString() });
    }
  }
  const served = new Map<string, number[]>();

  /** Counts the request against the key's rolling window; the headers every admitted response carries, or undefined past the limit. */
  function admit(key: string, now: number): { headers: Record<string, string>; retryAfter?: number } {
    const recent = (served.get(key) ?? []).filter((at) => at > now - RATE_WINDOW_MS);
    served.set(key, recent);
    const resetAt = (oldest: number | undefined) => String(Math.ceil((oldest === undefined ? now : oldest + RATE_WINDOW_MS) / 1000));
    if (recent.length >= rateLimit) {
      const retryAfter = Math.max(1, Math.ceil((recent[0]! + RATE_WINDOW_MS - now) / 1000));
      return { headers: { 'x-ratelimit-limit': String(rateLimit), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': resetAt(recent[0]) }, retryAfter };
    }
    recent.push(now);
    return { headers: { 'x-ratelimit-limit': String(rateLimit), 'x-ratelimit-remaining': String(rateLimit - recent.length), 'x-ratelimit-reset': resetAt(recent[0]) } };
  }

  function list(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const [scheme, key] = (request.headers.authorization ?? '').split(' ');
    const customer = scheme === 'Bearer' && key ? keys.get(key) : undefined;
    if (customer === undefined) return json(response, 401, { error: 'Unauthorized' });
    const now = Date.now();
    const admitted = admit(key!, now);
    if (admitted.retryAfter !== undefined) return json(response, 429, { error: 'Too many requests' }, { ...admitted.headers, 'retry-after': String(admitted.retryAfter) });

    // Unknown parameters and empty values are ignored; a repeated one counts once, its last value.
    const single = (name: string) => url.searchParams.getAll(name).filter((value) => value !== '').at(-1);
    const details: string[] = [];
    const integer = (name: string, fallback: number) => {
      const value = single(name);
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(value) || Number(value) < 1) details.push(`${name} must be an integer of at least 1`);
      return Number(value);
    };
    const page = integer('page', 1);
    const pageSize = Math.min(integer('pageSize', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
    const statuses = url.searchParams.getAll('status').filter((value) => value !== '');
    for (const status of statuses) if (!(LOAD_STATUSES as readonly string[]).includes(status)) details.push(`status ${status} is not a load status`);
    const bounds: Record<string, number | undefined> = {};
    for (const name of ['updatedSince', ...DATE_FILTERS]) {
      const value = single(name);
      if (value === undefined) continue;
      bounds[name] = instantOf(value, name.endsWith('To'));
      if (bounds[name] === undefined) details.push(`${name} is not a date or a date-time`);
    }
    if (details.length > 0) return json(response, 400, { error: 'Bad request', details }, admitted.headers);

    const windowStart = new Date(now);
    windowStart.setUTCFullYear(windowStart.getUTCFullYear() - 1);
    const time = (value: string | null) => (value === null ? undefined : Date.parse(value));
    const inRange = (value: string | null, from: number | undefined, to: number | undefined) => {
      if (from === undefined && to === undefined) return true;
      const at = time(value);
      return at !== undefined && (from === undefined || at >= from) && (to === undefined || at <= to);
    };
    const matching = rows
      .filter(({ customer: owner, load }) => owner === customer && (time(load.scheduledPickupDate) ?? -Infinity) >= windowStart.getTime())
      .filter(({ load }) => bounds.updatedSince === undefined || Date.parse(load.updatedAt) >= bounds.updatedSince)
      .filter(({ load }) => statuses.length === 0 || statuses.includes(load.status))
      .filter(({ load }) => inRange(load.scheduledPickupDate, bounds.pickupFrom, bounds.pickupTo))
      .filter(({ load }) => inRange(load.scheduledDeliveryDate, bounds.deliveryFrom, bounds.deliveryTo))
      .filter(({ load }) => ['poNumber', 'billingRefNumber'].every((name) => single(name) === undefined || load[name as 'poNumber'] === single(name)))
      .sort((a, b) => a.load.updatedAt.localeCompare(b.load.updatedAt) || a.id - b.id);
    const data = matching.slice((page - 1) * pageSize, page * pageSize).map(({ load, createdAt }) => ({ ...load, createdAt }));
    json(response, 200, { data, page, pageSize, totalCount: matching.length, hasMore: page * pageSize < matching.length }, admitted.headers);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://deployment');
    if (request.method === 'GET' && url.pathname === OPENAPI_PATH) return json(response, 200, document());
    if (request.method === 'GET' && url.pathname === LIST_LOADS_PATH) return list(request, response, url);
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
