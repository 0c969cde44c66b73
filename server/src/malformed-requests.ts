// Requests Node's HTTP parser refuses before hapi sees them: headers (the URL included) over Node's
// 16 KiB limit, or bytes that are not HTTP. hapi answers those with a bare "400 Bad Request" and no body;
// SPEC §7 gives every error a JSON error body, so this answers them itself: 431 for headers too large,
// 400 (with `details`) for the rest, each with an X-Request-Id. A connection with a response still in
// progress (a pipelined request) is left to hapi, which ends it after that response.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Server } from '@hapi/hapi';
import type { ErrorBody, ValidationErrorBody } from '@loadfeed/spec';
import type { Logger } from 'pino';

interface Refusal {
  status: number;
  reason: string;
  body: ErrorBody | ValidationErrorBody;
}

const HEADERS_TOO_LARGE: Refusal = {
  status: 431,
  reason: 'Request Header Fields Too Large',
  body: { error: 'The request line and headers are too large (more than 16 KiB together); shorten the URL or the headers' },
};

const NOT_HTTP: Refusal = {
  status: 400,
  reason: 'Bad Request',
  body: { error: 'Malformed HTTP request', details: ['the request could not be parsed as HTTP/1.1'] },
};

function rawResponse({ status, reason, body }: Refusal): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-Id: ${randomUUID()}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

export function answerMalformedRequests(server: Server, logger: Logger): void {
  const inFlight = new WeakMap<Socket, number>();
  const change = (socket: Socket, by: number) => inFlight.set(socket, (inFlight.get(socket) ?? 0) + by);
  server.ext('onRequest', (request, h) => {
    const { socket } = request.raw.req;
    change(socket, 1);
    request.raw.res.once('close', () => change(socket, -1));
    return h.continue;
  });

  const listener = server.listener;
  const hapiHandlers = listener.listeners('clientError') as ((error: Error, socket: Socket) => void)[];
  listener.removeAllListeners('clientError');
  listener.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (inFlight.get(socket) ?? 0) > 0) {
      for (const handler of hapiHandlers) handler.call(listener, error, socket);
      return;
    }
    const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : NOT_HTTP;
    logger.info({ code: error.code, status: refusal.status }, 'malformed request refused');
    socket.end(rawResponse(refusal));
  });
}
