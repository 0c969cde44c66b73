// OpenTelemetry traces (server/README.md, "Tracing"): a span for the HTTP request that continues the
// caller's W3C traceparent, one for its route, and one for each PostgreSQL statement (admission, count,
// page) under the route, sent to an OTLP receiver on loopback (JSON and protobuf) or to the console.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp } from '../support/app.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

interface Received {
  contentType: string | undefined;
  body: Buffer;
}

/** An OTLP/HTTP receiver on loopback that keeps every POST to /v1/traces. */
async function otlpReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: HttpServer = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') received.push({ contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
      const json = String(request.headers['content-type']).includes('json');
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

describe('traces', () => {
  const database = useTestDatabase();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;

  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** A page 2 (a count, then the page) and a refused request, then the server stopped (which sends what is batched). */
  let customers = 0;
  async function tracedRequests(env: Record<string, string>) {
    const app = await startApp(database.url, { env });
    const customer = await app.customer(`traced-${(customers += 1)}`);
    const { key } = await app.key(customer);
    await app.load(customer, [aLoad('T-1'), aLoad('T-2'), aLoad('T-3')]);
    const page = await app.get('/api/v1/loads?pageSize=1&page=2', key, { traceparent: TRACEPARENT });
    const refused = await app.get('/api/v1/loads', undefined, { 'x-request-id': 'refused-1' });
    await app.close();
    return { page, refused };
  }

  it('sends OTLP/JSON spans for the request, its route and each statement, continuing the caller\'s traceparent', async () => {
    const { page } = await tracedRequests({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'feed-under-test' });
    expect(page.statusCode).toBe(200);
    const exports = receiver.received.splice(0);
    expect(exports.length).toBeGreaterThan(0);
    const batches = exports.map((each) => JSON.parse(each.body.toString('utf8')) as { resourceSpans: { resource: { attributes: JsonSpan['attributes'] }; scopeSpans: { spans: JsonSpan[] }[] }[] });
    const resources = batches.flatMap((batch) => batch.resourceSpans.map((each) => each.resource));
    expect(resources[0]!.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'feed-under-test' } });
    const spans = batches.flatMap((batch) => batch.resourceSpans.flatMap((each) => each.scopeSpans.flatMap((scope) => scope.spans)));

    const traced = spans.filter((span) => span.traceId === TRACE_ID);
    const request = traced.find((span) => span.name === 'GET /api/v1/loads')!;
    expect(request).toMatchObject({ parentSpanId: CALLER_SPAN, kind: 2 });
    expect(request.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 200 } });
    expect(request.attributes).toContainEqual({ key: 'http.route', value: { stringValue: '/api/v1/loads' } });
    const route = traced.find((span) => span.parentSpanId === request.spanId)!;
    expect(route.name).toBe('route GET /api/v1/loads');
    const statements = traced.filter((span) => span.parentSpanId === route.spanId);
    // The page's planned statement answers no page for a window the feed index does not cover, and the
    // query's own statement reads it then (loads/list.ts): one page span or two.
    const names = statements.map((span) => span.name);
    expect(names.slice(0, 3)).toEqual(['admission', 'count', 'page']);
    expect(names.slice(3).every((name) => name === 'page')).toBe(true);
    for (const statement of statements) expect(statement.attributes).toContainEqual({ key: 'db.system.name', value: { stringValue: 'postgresql' } });

    // A request without a traceparent starts a trace of its own; a refusal ends its request span with its status.
    const refused = spans.find((span) => span.traceId !== TRACE_ID && span.name === 'GET /api/v1/loads')!;
    expect(refused.parentSpanId ?? '').toBe('');
    expect(refused.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 401 } });
    expect(refused.attributes).toContainEqual({ key: 'http.request.header.x-request-id', value: { arrayValue: { values: [{ stringValue: 'refused-1' }] } } });
  }, 60_000);

  it('sends OTLP/protobuf by default, with the same spans', async () => {
    await tracedRequests({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const exports = receiver.received.splice(0);
    expect(exports.map((each) => each.contentType)).toContain('application/x-protobuf');
    const body = Buffer.concat(exports.map((each) => each.body));
    // Protobuf keeps strings as their bytes and ids as their 16 and 8 bytes.
    for (const text of ['GET /api/v1/loads', 'route GET /api/v1/loads', 'admission', 'count', 'page', 'loadfeed-server']) expect(body.includes(Buffer.from(text)), text).toBe(true);
    expect(body.includes(Buffer.from(TRACE_ID, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from(CALLER_SPAN, 'hex'))).toBe(true);
  }, 60_000);

  it('writes the spans to the console with OTEL_TRACES_EXPORTER=console', async () => {
    const written: unknown[] = [];
    const dir = vi.spyOn(console, 'dir').mockImplementation((value) => void written.push(value));
    const log = vi.spyOn(console, 'log').mockImplementation((value) => void written.push(value));
    try {
      await tracedRequests({ OTEL_TRACES_EXPORTER: 'console' });
    } finally {
      dir.mockRestore();
      log.mockRestore();
    }
    const spans = written.filter((value): value is { traceId: string; parentSpanContext?: { spanId: string }; name: string } => typeof value === 'object' && value !== null && 'traceId' in value);
    const traced = spans.filter((span) => span.traceId === TRACE_ID);
    expect([...new Set(traced.map((span) => span.name))].sort()).toEqual(['GET /api/v1/loads', 'admission', 'count', 'page', 'route GET /api/v1/loads']);
    expect(traced.find((span) => span.name === 'GET /api/v1/loads')!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
  }, 60_000);
});
