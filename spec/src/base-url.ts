// The base-URL mistakes a newcomer makes, recognised in one or two requests for the OpenAPI document
// (SPEC §1: `{base_url}/api/v1/openapi.json`, which needs no key and costs no quota), so that the SDK's
// command line and the conformance kit say what to change before they spend a request that counts.
// The common mistakes: the base URL ends in /api/v1 (or another part of an API path), it names a page or
// a folder of some other site (HTML, a 404), or it says http where the deployment speaks https or the
// reverse.
import { OPENAPI_PATH } from './contract.js';

export type BaseUrlVerdict =
  | { ok: true }
  /**
   * The base URL is not the API's: what was seen, and what to use instead when the probe found it.
   * `conclusive` when nothing there can be the API (unreachable, a web page, no JSON, or the API found
   * elsewhere); not when some JSON API answered without the document (a deployment that lacks it).
   */
  | { ok: false; problem: string; suggestion?: string; conclusive: boolean };

export interface ProbeOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Trailing parts of an API address that belong to the paths the clients add, not to the base URL. */
const API_PATH_TAIL = /\/api(?:\/v1(?:\/(?:loads|openapi\.json|docs)?)?)?\/?$/;

/** Error causes that say the other end speaks TLS to a plain request, or plain HTTP to a TLS handshake. */
const TLS_SPOKEN_HERE = /self[- ]signed|certificate|CERT_|unable to verify/i;
const PLAIN_HTTP_HERE = /wrong version number|packet length too long|EPROTO|ssl3_get_record|record layer/i;
const CLOSED_ON_PLAIN_REQUEST = /ECONNRESET|socket hang up|other side closed|UND_ERR_SOCKET|HPE_/i;

type Answer =
  | { kind: 'document' }
  | { kind: 'other'; status: number; what: string; json: boolean; location?: string }
  | { kind: 'unreachable'; cause: string };

/** Checks `baseUrl` with a request for its OpenAPI document, and a second one where the first suggests a fix. */
export async function probeBaseUrl(baseUrl: string, options: ProbeOptions = {}): Promise<BaseUrlVerdict> {
  const base = baseUrl.replace(/\/+$/, '');
  const first = await ask(base, options);
  if (first.kind === 'document') return { ok: true };
  const url = new URL(base);

  if (first.kind === 'unreachable') {
    const other = `${url.protocol === 'https:' ? 'http' : 'https'}://${base.slice(url.protocol.length + 2)}`;
    const speaksTheOther = mayBeTheOtherProtocol(base, first.cause);
    if (speaksTheOther) {
      const second = await ask(other, options);
      if (second.kind === 'document' || (url.protocol === 'http:' && second.kind === 'unreachable' && TLS_SPOKEN_HERE.test(second.cause))) {
        return mistake(`${base} speaks ${url.protocol === 'https:' ? 'plain HTTP, not HTTPS' : 'HTTPS, not plain HTTP'} (${first.cause})`, other);
      }
    }
    return { ok: false, problem: `cannot reach ${base}: ${first.cause}`, conclusive: true };
  }

  const seen = `${base}${OPENAPI_PATH} answered ${first.what}, not the API's OpenAPI document`;
  if (first.location !== undefined) {
    const target = new URL(first.location, `${base}${OPENAPI_PATH}`);
    if (target.pathname.endsWith(OPENAPI_PATH) && target.hostname === url.hostname && target.protocol !== url.protocol) {
      return mistake(`${seen}: it redirects to ${target.protocol.replace(':', '')}`, `${target.protocol}//${target.host}${target.pathname.slice(0, -OPENAPI_PATH.length)}`);
    }
  }
  const candidates = [...new Set([base.replace(API_PATH_TAIL, ''), url.origin])].filter((candidate) => candidate !== base);
  const [candidate] = candidates;
  if (candidate !== undefined) {
    const tail = base.slice(candidate.length);
    const second = await ask(candidate, options);
    if (second.kind === 'document') {
      return mistake(`${seen}: the base URL ends in ${tail}, which the paths already carry (they start with /api/v1)`, candidate);
    }
    if (API_PATH_TAIL.test(base)) {
      return { ok: false, problem: `${seen}; the base URL ends in ${tail}, but the paths already start with /api/v1: leave it out`, conclusive: true };
    }
  }
  return { ok: false, problem: `${seen}: is this the base URL of a Customer Data API deployment? (${OPENAPI_PATH} is added to it)`, conclusive: !first.json };
}

/**
 * Whether a request to `baseUrl` that failed before any response, with `cause` (the socket's or TLS's
 * words), may have met a server speaking the other protocol: then probeBaseUrl can tell which to use.
 */
export function mayBeTheOtherProtocol(baseUrl: string, cause: string): boolean {
  return new URL(baseUrl).protocol === 'https:' ? PLAIN_HTTP_HERE.test(cause) : CLOSED_ON_PLAIN_REQUEST.test(cause);
}

/** The one line a command prints for a verdict that is not ok. */
export function describeVerdict(verdict: Exclude<BaseUrlVerdict, { ok: true }>): string {
  return verdict.suggestion === undefined ? verdict.problem : `${verdict.problem}; use --base-url ${verdict.suggestion}`;
}

function mistake(problem: string, suggestion: string): BaseUrlVerdict {
  return { ok: false, problem, suggestion, conclusive: true };
}

async function ask(base: string, { fetch = globalThis.fetch, timeoutMs = DEFAULT_TIMEOUT_MS }: ProbeOptions): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${base}${OPENAPI_PATH}`, { redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return { kind: 'unreachable', cause: causeOf(error) };
  }
  const type = response.headers.get('content-type') ?? '';
  let body: unknown;
  const text = await response.text().catch(() => '');
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.status === 200 && typeof body === 'object' && body !== null && typeof (body as { openapi?: unknown }).openapi === 'string') {
    return { kind: 'document' };
  }
  const what = `${response.status}${/html/i.test(type) ? ' with an HTML page' : body === undefined ? ' with no JSON' : ''}`;
  const location = response.headers.get('location');
  return { kind: 'other', status: response.status, what, json: body !== undefined && !/html/i.test(type), ...(location ? { location } : {}) };
}

/** The innermost reason a request failed: the socket's or TLS's own words, not fetch's "fetch failed". */
function causeOf(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error && parts.length < 4; current = (current as Error & { cause?: unknown }).cause) {
    const code = (current as Error & { code?: unknown }).code;
    parts.push(typeof code === 'string' && !current.message.includes(code) ? `${current.message} (${code})` : current.message);
  }
  const inner = parts.filter((part) => part !== 'fetch failed');
  // TLS libraries print several lines (OpenSSL's reason, then its code): one line keeps the fix after it in view.
  return (inner.at(-1) ?? parts[0] ?? String(error)).replace(/\s+/g, ' ').trim();
}
