// Request logging: one line per request (id, method, path, customer, status, duration) through pino.
// No header, query string or payload is logged, so a key cannot reach the log even when a client puts
// one where it does not belong; redaction guards the paths a header could still take.
import type { Request, Server } from '@hapi/hapi';
import hapiPino from 'hapi-pino';
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    requestId?: string;
  }
}

const REDACTED = ['req.headers.authorization', 'headers.authorization', 'authorization', '*.authorization', 'key', '*.key'];

/** The server's logger: JSON lines to `destination` (stdout by default). */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino({ level, redact: { paths: REDACTED, censor: '[redacted]' } }, destination as pino.DestinationStream);
}

/** Registers hapi-pino; the request id must be set by an onRequest extension added before this. */
export async function registerRequestLogging(server: Server, logger: Logger): Promise<void> {
  await server.register({
    plugin: hapiPino,
    options: {
      instance: logger,
      getChildBindings: (request: Request) => ({ requestId: request.app.requestId, method: request.method, path: request.path }),
      serializers: { res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }) },
      customRequestCompleteMessage: (request: Request, responseTime: number) =>
        `${request.method.toUpperCase()} ${request.path} ${request.response && 'statusCode' in request.response ? request.response.statusCode : '-'} ${responseTime}ms`,
    },
  });
}

/** Adds the customer to the request's log line once the key is known. */
export function bindCustomer(request: Request, customerCode: string): void {
  request.logger = request.logger.child({ customer: customerCode });
}
