// Requests that never reach a route as hapi sees them, still answered with SPEC §7's error body and an
// X-Request-Id: what Node's HTTP parser refuses (headers, the URL included, over Node's 16 KiB limit:
// 431; headers not sent within HEADERS_TIMEOUT_MS: 408; bytes that are not HTTP: 400), a CONNECT
// (405), an Expect header other than 100-continue (417), and an HTTP/1.1 request without a Host header
// (400; Node's own check would answer it with a bare 400, so the listener leaves it to this one, see
// app.ts). A refusal whose request was parsed (the 417) keeps the caller's well-formed X-Request-Id, as
// every routed response does (request-id.ts); the others have no parsed headers and get a new one. hapi's own handler of parser errors is replaced, not wrapped: it logs the error whole, and
// Node's parser errors carry the raw bytes of the connection (`rawPacket`), a key among them. A refusal
// that follows a request still being answered on the same connection (pipelining) waits for that
// response, so that it is not lost.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Boom from '@hapi/boom';
import type { Server } from '@hapi/hapi';
import { RESPONSE_HEADERS, type ErrorBody, type ValidationErrorBody } from '@loadfeed/spec';
import type { Logger } from 'pino';
import { errorResponse } from './errors.js';
import { requestIdOf } from './request-id.js';

interface Refusal {
  status: number;
  reason: string;
  body: ErrorBody | ValidationErrorBody;
  headers: Record<string, string>;
}

/** A refusal's status, body and headers, made by errors.ts as for every other error. */
function refusal(error: Boom.Boom): Refusal {
  const { status, body, headers } = errorResponse(error);
  return { status, reason: STATUS_CODES[status] ?? '', body, headers };
}

const HEADERS_TOO_LARGE = refusal(new Boom.Boom('The request line and headers are too large (more than 16 KiB together); shorten the URL or the headers', { statusCode: 431 }));
const HEADERS_TOO_SLOW = refusal(Boom.clientTimeout('The request headers did not arrive in time'));
const NOT_HTTP = refusal(Boom.badRequest('Malformed HTTP request', { details: ['the request could not be parsed as HTTP/1.1'] }));
const EXPECTATION = refusal(Boom.expectationFailed('Expectation failed; this server meets only Expect: 100-continue'));
const CONNECT = refusal(Boom.methodNotAllowed('CONNECT', undefined, ['GET']));

function refusalOf(code: string | undefined): Refusal {
  if (code === 'HPE_HEADER_OVERFLOW') return HEADERS_TOO_LARGE;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return HEADERS_TOO_SLOW;
  return NOT_HTTP;
}

function rawResponse({ status, reason, body, headers }: Refusal, requestId: string): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `${RESPONSE_HEADERS.requestId}: ${requestId}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

export function answerMalformedRequests(server: Server, logger: Logger): void {
  const listener = server.listener;

  // Responses not yet finished, per connection: counted from Node's 'request' event, before hapi takes
  // the request, because a pipelined request's parser error comes in the same tick as the request before it.
  const unfinished = new WeakMap<Socket, Set<ServerResponse>>();
  const track = (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    const responses = unfinished.get(socket) ?? new Set<ServerResponse>();
    unfinished.set(socket, responses);
    responses.add(response);
    response.once('close', () => responses.delete(response));
  };
  listener.prependListener('request', track);

  const refuse = (socket: Socket, refusal: Refusal, code: string | undefined): void => {
    const requestId = randomUUID();
    // The code alone says what was wrong; the error itself holds the connection's raw bytes.
    logger.info({ requestId, code, status: refusal.status }, 'malformed request refused');
    const send = () => {
      if (socket.writable) socket.end(rawResponse(refusal, requestId));
      else socket.destroy();
    };
    const pending = [...(unfinished.get(socket) ?? [])];
    if (pending.length === 0) return send();
    let left = pending.length;
    for (const response of pending) {
      response.once('close', () => {
        left -= 1;
        if (left === 0) send();
      });
    }
  };

  listener.removeAllListeners('clientError');
  listener.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      // The client has gone (a reset mid-request): nobody to answer.
      socket.destroy();
      return;
    }
    refuse(socket, refusalOf(error.code), error.code);
  });

  listener.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => {});
    refuse(socket, CONNECT, 'CONNECT');
  });

  // An Expect other than 100-continue: Node answers a bare 417 unless told otherwise.
  listener.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    track(request, response);
    const requestId = requestIdOf(request);
    logger.info({ requestId, status: EXPECTATION.status }, 'unmet expectation refused');
    const json = JSON.stringify(EXPECTATION.body);
    response.writeHead(EXPECTATION.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json), [RESPONSE_HEADERS.requestId]: requestId });
    response.end(json);
  });

  server.ext('onRequest', (request, h) => {
    const { httpVersion, headers } = request.raw.req;
    if (httpVersion === '1.1' && headers.host === undefined) {
      throw Boom.badRequest('Malformed HTTP request', { details: ['an HTTP/1.1 request must carry a Host header'] });
    }
    return h.continue;
  });
}
