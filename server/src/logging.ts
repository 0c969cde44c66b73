// Request logging: one line per request (id, method, path, customer, status, duration) through pino,
// and for a 5xx one more line with its cause. No header, query string or payload is logged, so a key
// cannot reach the log even when a client puts one where it does not belong; redaction guards the paths
// a header could still take, errors are logged by what names their cause alone (never their other
// properties: Node's parser errors carry the raw request bytes), and no line grows past a bound.
import type { Request, Server } from '@hapi/hapi';
import { pino, type Logger } from 'pino';
import { API_KEY_PREFIX } from '@loadfeed/spec';
import type { LogLevel } from './config/load.js';

const REDACTED = ['req.headers.authorization', 'headers.authorization', 'authorization', '*.authorization', 'key', '*.key'];

/** A log line longer than this is cut down to what identifies it: a log store takes lines of bounded size. */
const MAX_LOG_LINE_BYTES = 8 * 1024;
const MAX_MESSAGE_CHARS = 1_000;
const MAX_STACK_CHARS = 4_000;
/** Anything shaped like an API key, wherever it hides in a line. */
const KEY_LIKE = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_-]+`, 'g');

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

interface LoggedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError;
  errors?: LoggedError[];
}

/**
 * What the log keeps of an error: its type, message, code and stack, and the same of its cause and of
 * the errors an AggregateError holds (a refused connection to "localhost" is one per address).
 */
function loggedError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: cut(String(error), MAX_MESSAGE_CHARS) };
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  const logged: LoggedError = { type: error.name, message: cut(error.message, MAX_MESSAGE_CHARS) };
  if (typeof code === 'string' || typeof code === 'number') logged.code = String(code);
  if (error.stack) logged.stack = cut(error.stack, MAX_STACK_CHARS);
  if (depth < 3 && cause !== undefined) logged.cause = loggedError(cause, depth + 1);
  if (depth < 3 && error instanceof AggregateError) logged.errors = error.errors.slice(0, 3).map((inner) => loggedError(inner, depth + 1));
  return logged;
}

function parsedLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * A line past MAX_LOG_LINE_BYTES becomes one that says so, keeping the fields that say which request
 * and what happened; key-shaped text is masked in every line.
 */
function boundedLines(destination: NodeJS.WritableStream): pino.DestinationStream {
  return {
    write(line: string) {
      let bounded = line.replace(KEY_LIKE, `${API_KEY_PREFIX}[redacted]`);
      if (Buffer.byteLength(bounded) > MAX_LOG_LINE_BYTES) {
        const parsed = parsedLine(bounded);
        const kept = Object.fromEntries(
          ['level', 'time', 'pid', 'hostname', 'requestId', 'method', 'customer'].filter((name) => name in parsed).map((name) => [name, parsed[name]]),
        );
        const path = typeof parsed.path === 'string' ? cut(parsed.path, 200) : undefined;
        const msg = typeof parsed.msg === 'string' ? cut(parsed.msg, 500) : undefined;
        bounded = `${JSON.stringify({ ...kept, path, msg, truncated: `a line of ${Buffer.byteLength(line)} bytes, past the ${MAX_LOG_LINE_BYTES}-byte bound` })}\n`;
      }
      destination.write(bounded);
    },
  };
}

/** The server's logger: JSON lines to `destination` (stdout by default). */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino(
    { level, redact: { paths: REDACTED, censor: '[redacted]' }, serializers: { err: loggedError, error: loggedError } },
    boundedLines(destination),
  );
}

/** What names a request in each of its lines. */
function requestFields(request: Request): Record<string, unknown> {
  return { requestId: request.app.requestId, method: request.method, path: cut(request.path, 200), customer: request.app.admission?.key?.credentials.customerCode };
}

/**
 * One line per request when it has been answered (at info), and the server's start and stop. Written
 * here rather than with a plugin that makes a child logger per request: those bindings are serialized on
 * every request, whether or not a line is written (measured: ~8% of a page's CPU at LOG_LEVEL=warn).
 */
export function registerRequestLogging(server: Server, logger: Logger): void {
  server.events.on('response', (request) => {
    if (!logger.isLevelEnabled('info')) return;
    const status = request.response && 'statusCode' in request.response ? request.response.statusCode : undefined;
    const responseTime = Date.now() - request.info.received;
    logger.info(
      { ...requestFields(request), res: { statusCode: status }, responseTime },
      `${request.method.toUpperCase()} ${cut(request.path, 200)} ${status ?? '-'} ${responseTime}ms`,
    );
  });
  server.ext('onPostStart', () => logger.info({ uri: server.info.uri }, 'server started'));
  server.ext('onPostStop', () => logger.info('server stopped'));
}

/** Logs why a request gets a 5xx, once, with its request id and customer. */
export function logFailure(logger: Logger, request: Request, status: number, cause: unknown, reason?: string): void {
  if (reason) logger.warn({ ...requestFields(request), status }, reason);
  else logger.error({ ...requestFields(request), status, err: cause }, `request failed with ${status}: ${loggedError(cause).message}`);
}
