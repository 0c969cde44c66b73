// When a request fails in a way a wrong base URL causes (a 404, a page that is not the API's JSON, a
// connection that speaks the other protocol), one or two requests for the OpenAPI document (no key, no
// quota: @loadfeed/spec/base-url) tell whether the base URL is the mistake, and what to use instead; the
// client then raises a BaseUrlError that says so, rather than "404: Not found". A base URL that checks out
// leaves the failure as it was, and is not asked about again.
import { mayBeTheOtherProtocol, probeBaseUrl, type BaseUrlVerdict } from '@loadfeed/spec/base-url';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  BaseUrlError,
  ConnectionError,
  ContractError,
  LoadfeedError,
  NoProgressError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  WaitTooLongError,
} from './errors.js';
import { PageContractError } from './page-contract.js';

/** Failures that come from a deployment that answered as the API does: its base URL is right. */
const ANSWERED_AS_THE_API = [AbortError, AuthenticationError, BadRequestError, RateLimitError, ServerError, TimeoutError, PageContractError, BaseUrlError];

/** The SDK's bounds against whatever answers: each names what it refused, which says more than a probe of that
 * same server would (and a probe would ask it once more). */
const REFUSED_BY_A_BOUND = [NoProgressError, RedirectError, ResponseTooLargeError, WaitTooLongError];

/** For one client: turns a failure a wrong base URL explains into a BaseUrlError; probes at most once. */
export function baseUrlCheck(baseUrl: string, fetch: (request: Request) => Promise<Response>) {
  let verdict: Promise<BaseUrlVerdict> | undefined;
  const probeFetch: typeof globalThis.fetch = (input, init) => fetch(new Request(input, init));
  return async function explain(error: unknown): Promise<unknown> {
    if (!(error instanceof LoadfeedError)) return error;
    if ([...ANSWERED_AS_THE_API, ...REFUSED_BY_A_BOUND].some((kind) => error instanceof kind)) return error;
    // A page envelope whose rows break the contract came from the API; a body that is no envelope may not have.
    if (error instanceof ContractError && error.violations.some((violation) => violation.path !== '/')) return error;
    // A connection that failed is probed only when its cause may be the other protocol (a refused or
    // unknown host is said best by the failure itself), never once a response had begun.
    if (error instanceof ConnectionError && (error.responseStarted || !mayBeTheOtherProtocol(baseUrl, causeText(error)))) return error;
    verdict ??= probeBaseUrl(baseUrl, { fetch: probeFetch }).catch((): BaseUrlVerdict => ({ ok: true }));
    const seen = await verdict;
    // A JSON API that lacks the document may well be the deployment: its own failure says more.
    if (seen.ok || !seen.conclusive) return error;
    // An unreachable address is said best by the failure itself, which names the host, the port and the cause.
    if (error instanceof ConnectionError && seen.suggestion === undefined) return error;
    return new BaseUrlError(seen.problem, seen.suggestion, { cause: error });
  };
}

/** Every message and code along an error's causes, for the patterns that recognise the other protocol. */
function causeText(error: Error): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error && parts.length < 8; current = (current as Error & { cause?: unknown }).cause) {
    const code = (current as Error & { code?: unknown }).code;
    parts.push(current.message, typeof code === 'string' ? code : '');
  }
  return parts.join(' ');
}
