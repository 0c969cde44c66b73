// One attempt, whole: the request goes out and the response comes back with its body already read. The
// body is read inside the attempt because it can fail as late as its last byte (a socket closed mid-body,
// or a JSON body cut short under a Content-Length that matches the cut); read afterwards, by openapi-fetch,
// such a failure escaped the retries and the error tree as a bare TypeError or SyntaxError. Here every
// failure of an attempt is a ConnectionError that names the host and the cause, retried like any other,
// but for a runtime's refusal of the network (Deno's permissions), which is no connection failure.
//
// The client composes its fetch from small layers of this one shape (see client.ts): retries
// (retry.ts) over pacing (pacing.ts) over a timeout (timeout.ts) over this transport.
import { DEFAULT_MAX_RESPONSE_BYTES, readBodyWithin } from './body-limit.js';
import { AbortError, ConnectionError, LoadfeedError } from './errors.js';
import { hostPort } from './host-port.js';
import { sameOriginRedirects } from './redirects.js';


/** What the caller of one logical request can say about it; every layer passes it down. */
export interface CallLimits {
  signal?: AbortSignal;
  /** Epoch ms (our clock) after which the caller would rather have an error than a wait. */
  deadline?: number;
  /** Called before each wait this request makes (for the rate limit, or before a retry). */
  onWait?(event: WaitEvent): void;
}

/** A wait before a request goes out. */
export interface WaitEvent {
  /** `quota`: pacing, the key's requests for the window are spent; `retry`: the backoff or Retry-After before a retry. */
  kind: 'quota' | 'retry';
  delayMs: number;
  /** Epoch ms (our clock) the wait ends. */
  until: number;
  /** Why, in words: "the key's 10 requests a minute are spent", "status 503", a connection failure… */
  reason: string;
}

export interface AttemptContext extends CallLimits {
  /** 1 for the first attempt of a logical request, then 2, 3… */
  attempt: number;
}

/** One layer's view of the layer beneath it. */
export type AttemptFetch = (request: Request, context: AttemptContext) => Promise<Response>;

/** Statuses whose response has no body by definition (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export interface TransportOptions {
  /** The largest body read, in bytes; a larger one is a ResponseTooLargeError (body-limit.ts). */
  maxResponseBytes?: number;
}

/**
 * The transport: `fetch`, redirects followed only within the origin, the body read whole up to
 * `maxResponseBytes`, and every failure a ConnectionError (or an AbortError). The errors of the tree it
 * raises on purpose (a body too large, a redirect elsewhere) pass as they are.
 */
export function wholeResponses(fetch: (request: Request) => Promise<Response>, options: TransportOptions = {}): AttemptFetch {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const send = sameOriginRedirects(fetch);
  return async function transport(request, context) {
    const aborted = () => [context.signal, request.signal].find((signal) => signal?.aborted);
    let response: Response;
    try {
      response = await send(request);
    } catch (error) {
      if (error instanceof LoadfeedError || isPermissionDenial(error)) throw error;
      const signal = aborted();
      if (signal) throw AbortError.from(signal);
      throw connectionFailure(request.url, 'request', error);
    }
    let text: string;
    try {
      text = await readBodyWithin(response, maxBytes, request.url);
    } catch (error) {
      if (error instanceof LoadfeedError) throw error;
      const signal = aborted();
      if (signal) throw AbortError.from(signal);
      throw connectionFailure(request.url, 'body', error);
    }
    const init = { status: response.status, statusText: response.statusText, headers: response.headers };
    if (NULL_BODY_STATUSES.has(response.status)) return new Response(null, init);
    if (!response.ok || text === '' || !isJson(response.headers)) return new ReadResponse(text, init, undefined);
    // A 200 is parsed here, once: JSON that ends early is a cut body, and a failed attempt.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw connectionFailure(request.url, 'json', error, utf8Length(text));
    }
    return new ReadResponse(text, init, { parsed });
  };
}

/**
 * The runtime's refusal to let the program reach the network (Deno without `--allow-net` for the host:
 * `NotCapable`, or `PermissionDenied` before Deno 2): the command line needs fixing, and no retry helps,
 * so it reaches the caller as Deno raised it, naming the flag.
 */
const PERMISSION_DENIALS = new Set(['NotCapable', 'PermissionDenied']);
const isPermissionDenial = (error: unknown): boolean => error instanceof Error && PERMISSION_DENIALS.has(error.name);

const encoder = new TextEncoder();
/** A text's length in UTF-8 bytes: Node's Buffer counts without copying; a browser has only TextEncoder. */
const utf8Length: (text: string) => number =
  typeof Buffer === 'function' ? (text) => Buffer.byteLength(text) : (text) => encoder.encode(text).byteLength;

/**
 * A response read whole within its attempt, whose body can be read again any number of times. It hands
 * out the text it holds rather than wrapping it in a new stream, and json() gives what the attempt parsed
 * instead of parsing it twice. Its methods live on the prototype: a Response built around a page's 50 KB
 * (which copies it into a stream), or per-response closures, doubled the garbage per page and took the
 * benchmark's CPU ratio from about 1.05 to 1.2-1.3.
 */
class ReadResponse extends Response {
  readonly #text: string;
  readonly #json: { parsed: unknown } | undefined;

  constructor(text: string, init: ResponseInit & { headers: Headers }, json: { parsed: unknown } | undefined) {
    const headers = new Headers(init.headers);
    // openapi-fetch calls json() when a Content-Length is present, and text() + JSON.parse otherwise.
    headers.set('content-length', String(utf8Length(text)));
    super(null, { ...init, headers });
    this.#text = text;
    this.#json = json;
  }

  // Response's typings declare these as properties, so they are defined on the prototype here.
  static {
    const blob = (response: ReadResponse) => new Blob([response.#text], { type: response.headers.get('content-type') ?? '' });
    Object.defineProperties(ReadResponse.prototype, {
      body: { get: function body(this: ReadResponse) { return blob(this).stream(); } },
      json: { value: async function json(this: ReadResponse) { return this.#json ? this.#json.parsed : JSON.parse(this.#text); } },
      text: { value: async function text(this: ReadResponse) { return this.#text; } },
      arrayBuffer: { value: async function arrayBuffer(this: ReadResponse) { return blob(this).arrayBuffer(); } },
      bytes: { value: async function bytes(this: ReadResponse) { return new Uint8Array(await blob(this).arrayBuffer()); } },
      blob: { value: async function asBlob(this: ReadResponse) { return blob(this); } },
      clone: {
        value: function clone(this: ReadResponse) {
          return new ReadResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers }, this.#json);
        },
      },
    });
  }
}

const isJson = (headers: Headers) => /[/+]json\b/i.test(headers.get('content-type') ?? '');

/** Error codes in words, for the cause part of a connection failure. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved for now',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'the body stalled',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CLOSED: 'the connection was closed',
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
};

/**
 * A ConnectionError whose message says where and why: the host and port, and the innermost cause's code
 * in words (`ECONNREFUSED`, `ENOTFOUND`…), or its message when it has no code. Node's fetch wraps the
 * cause twice ("fetch failed" → "terminated" → the socket's error); only the innermost says anything.
 */
export function connectionFailure(url: string, phase: 'request' | 'body' | 'json', error: unknown, bytes?: number): ConnectionError {
  const where = hostPort(url);
  let innermost: unknown = error;
  let code: string | undefined;
  for (let depth = 0, current: unknown = error; current instanceof Error && depth < 8; depth += 1, current = current.cause) {
    innermost = current;
    const found = (current as { code?: unknown }).code;
    if (typeof found === 'string' && code === undefined) code = found;
  }
  const detail = innermost instanceof Error ? innermost.message : String(innermost);
  const cause = code === undefined ? detail : `${code}: ${CAUSES[code] ?? detail}`;
  const message =
    phase === 'request'
      ? `the request to ${where} failed (${cause})`
      : phase === 'body'
        ? `the response from ${where} was cut short mid-body (${cause})`
        : `the response from ${where} was cut short: its ${bytes} bytes are not whole JSON (${detail})`;
  return new ConnectionError(message, { cause: error, responseStarted: phase !== 'request' });
}
