import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  BaseUrlError,
  LoadfeedError,
  NoProgressError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  ServerError,
  WaitTooLongError,
  errorFromResponse,
} from '../src/index.js';

const headers = (extra: Record<string, string> = {}) => new Headers({ 'X-Request-Id': 'req-123', ...extra });

describe('errorFromResponse', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [404, ApiError],
  ])('maps %i to %o, carrying status, headers and the request id', (status, kind) => {
    const error = errorFromResponse(status, headers(), { error: 'no' }, 0);
    expect(error).toBeInstanceOf(kind);
    expect(error).toBeInstanceOf(LoadfeedError);
    expect(error.status).toBe(status);
    expect(error.requestId).toBe('req-123');
    expect(error.headers.get('x-request-id')).toBe('req-123');
    expect(error.body).toEqual({ error: 'no' });
  });

  it('a 400 exposes the per-parameter details', () => {
    const error = errorFromResponse(400, headers(), { error: 'bad', details: ['"pageSize" must be an integer'] }, 0);
    expect((error as BadRequestError).details).toEqual(['"pageSize" must be an integer']);
  });

  it('a 429 says how long to wait and when to resume', () => {
    const now = Date.UTC(2026, 0, 1);
    const error = errorFromResponse(429, headers({ 'Retry-After': '42' }), { error: 'slow down' }, now) as RateLimitError;
    expect(error.retryAfter).toBe(42);
    expect(error.resumeAt).toBe(now + 42_000);
    expect(error.message).toContain(new Date(now + 42_000).toISOString());
  });

  it('a body that is not an error body still gives the right class', () => {
    const error = errorFromResponse(502, new Headers(), '<html>bad gateway</html>', 0);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.body).toBeUndefined();
    expect(error.requestId).toBeUndefined();
  });
});

describe('the limits against a hostile server', () => {
  it.each([
    ['ResponseTooLargeError', new ResponseTooLargeError('too large', 1024, { status: 200, headers: headers() })],
    ['WaitTooLongError', new WaitTooLongError('too long', { requestedMs: 2, limitMs: 1, askedBy: 'Retry-After: 2' }, { status: 429, headers: headers() })],
    ['NoProgressError', new NoProgressError('stuck', { headers: headers() })],
    ['RedirectError', new RedirectError('elsewhere', 'https://other.example/', { status: 302, headers: headers() })],
    ['BaseUrlError', new BaseUrlError('it answered 404 with an HTML page', 'https://loads.example', { headers: headers() })],
  ])('%s is a kind of its own in the one tree, with the request id, and not a ConnectionError (so never retried as one)', (name, error) => {
    expect(error).toBeInstanceOf(LoadfeedError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.name).toBe(name);
    expect(error.requestId).toBe('req-123');
  });
});
