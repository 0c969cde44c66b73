// Sends the kit's requests through Playwright's APIRequestContext: paced by the budget, answered from the
// run's log when the same request was already made, recorded as evidence and validated against the contract.
import type { APIRequestContext } from '@playwright/test';
import { LIST_LOADS_PATH, RATE_WINDOW_MS } from '@loadfeed/spec';
import { checkResponse } from '@loadfeed/spec/validate';
import { LONGEST_WAIT_MS, retryAfterSeconds, waitBeforeSending } from './budget.js';
import { excerpt, maskAuthorization, type Credential, type Exchange, type ExchangeLog } from './evidence.js';
import type { KeyLabel, KitOptions } from './options.js';
import { REAL_WAITING, waitForRateLimit, type Waiting } from './waiting.js';

/** Query parameters; an array repeats the parameter (`status=A&status=B`), which Playwright's `params` would join. */
export type Query = Record<string, string | number | readonly string[]>;

export function queryString(query: Query | string): string {
  if (typeof query === 'string') return query;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of typeof value === 'object' ? value : [String(value)]) search.append(name, item);
  }
  return search.toString();
}

export interface SendOptions {
  method?: string;
  /** Send even if the log holds the same request (a re-fetch, a burst). */
  fresh?: boolean;
  /** Wait for the window before sending; false only where a check means to meet the limit. */
  pace?: boolean;
  /** Wait this long before sending (a Retry-After), saying so as every wait for the rate limit does. */
  waitFirstMs?: number;
  note?: string;
}

/** A request with any Authorization value (null: none); `listLoads` says whether to validate it as listLoads. */
export interface RawRequest {
  path: string;
  authorization: string | null;
  credential: Credential;
  listLoads: boolean;
}

export interface Sender {
  /** GET listLoads with one of the run's keys. */
  list(key: KeyLabel, query?: Query | string, options?: SendOptions): Promise<Exchange>;
  send(request: RawRequest, options?: SendOptions): Promise<Exchange>;
}

export class DeploymentUnreachable extends Error {
  override name = 'DeploymentUnreachable';
}

export function createSender(
  context: Pick<APIRequestContext, 'fetch'>,
  options: KitOptions,
  log: ExchangeLog,
  onExchange: (exchange: Exchange) => void = () => {},
  waiting: Waiting = REAL_WAITING,
): Sender {
  /** The next request's number, and the plan's total when the run has planned. */
  const next = () => ({ number: log.exchanges.length + 1, planned: (log.plan as { requests?: number } | undefined)?.requests });
  async function transmit(path: string, method: string, authorization: string | null): Promise<Omit<Exchange, 'id' | 'credential' | 'listLoads' | 'violations' | 'note'>> {
    const sentAt = Date.now();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization !== null) headers.authorization = authorization;
    let response;
    try {
      response = await context.fetch(options.baseUrl + path, { method, headers, failOnStatusCode: false, maxRedirects: 0 });
    } catch (error) {
      throw new DeploymentUnreachable(`cannot reach ${options.baseUrl}: ${(error as Error).message.split('\n')[0]}`);
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return {
      authorization: authorization === null ? null : maskAuthorization(authorization),
      method,
      target: path,
      sentAt,
      receivedAt: Date.now(),
      status: response.status(),
      headers: response.headers(),
      body,
      bodyExcerpt: excerpt(text),
    };
  }

  const sender: Sender = {
    async send(request, sendOptions = {}) {
      const method = sendOptions.method ?? 'GET';
      if (!sendOptions.fresh) {
        const authorization = request.authorization === null ? null : maskAuthorization(request.authorization);
        const cached = log.cached({ credential: request.credential, authorization, method, target: request.path });
        if (cached) {
          onExchange(cached);
          return cached;
        }
      }
      const key = request.credential === 'primary' || request.credential === 'second' ? request.credential : undefined;
      const pace = sendOptions.pace ?? true;
      if (sendOptions.waitFirstMs !== undefined) await waitForRateLimit(sendOptions.waitFirstMs, next(), waiting);
      if (key && pace) await waitForRateLimit(waitBeforeSending(log.exchanges, key, Date.now()), next(), waiting);
      const record = (raw: Awaited<ReturnType<typeof transmit>>, note?: string) =>
        log.record({
          ...raw,
          credential: request.credential,
          listLoads: request.listLoads,
          violations: request.listLoads ? checkResponse(raw) : [],
          ...(note ? { note } : {}),
        });
      let exchange = record(await transmit(request.path, method, request.authorization), sendOptions.note);
      if (exchange.status === 429 && key && pace) {
        // The pacing met the limit (another client shares the key, or the deployment counts differently):
        // wait as told and send once more, and the budget reports the 429 as unexpected.
        onExchange(exchange);
        await waitForRateLimit(Math.min((retryAfterSeconds(exchange) ?? RATE_WINDOW_MS / 1000) * 1000, LONGEST_WAIT_MS), next(), waiting);
        exchange = record(await transmit(request.path, method, request.authorization), sendOptions.note);
      }
      onExchange(exchange);
      return exchange;
    },
    list(key, query = {}, sendOptions = {}) {
      const secret = options.keys[key];
      if (secret === undefined) throw new Error(`the run has no ${key} key`);
      const search = queryString(query);
      return sender.send(
        { path: search ? `${LIST_LOADS_PATH}?${search}` : LIST_LOADS_PATH, authorization: `Bearer ${secret}`, credential: key, listLoads: true },
        sendOptions,
      );
    },
  };
  return sender;
}
