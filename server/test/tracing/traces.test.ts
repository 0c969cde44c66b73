// OpenTelemetry traces (server/README.md, "Tracing"): a span for the HTTP request that continues the
// caller's W3C traceparent, one for its route, and one for each PostgreSQL statement (admission, count,
// page) under the route, sent to an OTLP receiver on loopback (JSON and protobuf) or to the console.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { aLoad, startApp } from '../support/app.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

interface Received {
  path: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

/** An OTLP/HTTP receiver on loopback that keeps every POST, whatever its path. */
async function otlpReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: HttpServer = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST') received.push({ path: request.url, contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
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

type JsonExport = { resourceSpans: { resource: { attributes: JsonSpan['attributes'] }; scopeSpans: { spans: JsonSpan[] }[] }[] };

/** The resources' attributes of OTLP/JSON exports. */
function resourcesOf(exports: Received[]): JsonSpan['attributes'][] {
  return exports.flatMap((each) => (JSON.parse(each.body.toString('utf8')) as JsonExport).resourceSpans.map((spans) => spans.resource.attributes));
}

const SERVER_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('traces', () => {
  const database = useTestDatabase();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  /** The receiver OTEL_EXPORTER_OTLP_ENDPOINT names where another variable must win over it. */
  let passedOver: Awaited<ReturnType<typeof otlpReceiver>>;

  beforeAll(async () => {
    receiver = await otlpReceiver();
    passedOver = await otlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await passedOver?.close();
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
    expect(resources[0]!.attributes).toContainEqual({ key: 'service.version', value: { stringValue: SERVER_VERSION } });
    expect(exports.every((each) => each.path === '/v1/traces')).toBe(true);
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

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone turns traces on and is used as it is; the resource has OTEL_RESOURCE_ATTRIBUTES and the server\'s version', async () => {
    const { page } = await tracedRequests({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/collector/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=named-by-attributes, deployment.environment.name=staging,team=feed%2Cops,service.version=0.0.0-told',
    });
    expect(page.statusCode).toBe(200);
    const exports = receiver.received.splice(0);
    expect(exports.length).toBeGreaterThan(0);
    expect(exports.map((each) => each.path)).toEqual(exports.map(() => '/collector/traces'));
    const [resource] = resourcesOf(exports);
    expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'named-by-attributes' } });
    expect(resource).toContainEqual({ key: 'deployment.environment.name', value: { stringValue: 'staging' } });
    expect(resource).toContainEqual({ key: 'team', value: { stringValue: 'feed,ops' } });
    // The release that served is the server's to say, whatever one environment shared by two releases says.
    expect(resource).toContainEqual({ key: 'service.version', value: { stringValue: SERVER_VERSION } });
  }, 60_000);

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT wins over OTEL_EXPORTER_OTLP_ENDPOINT, and OTEL_SERVICE_NAME over the attributes', async () => {
    await tracedRequests({
      OTEL_EXPORTER_OTLP_ENDPOINT: passedOver.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'named-by-variable',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=named-by-attributes',
    });
    const exports = receiver.received.splice(0);
    expect(exports.length).toBeGreaterThan(0);
    expect(passedOver.received.splice(0)).toEqual([]);
    expect(resourcesOf(exports)[0]).toContainEqual({ key: 'service.name', value: { stringValue: 'named-by-variable' } });
  }, 60_000);

  it('OTEL_SDK_DISABLED=true sends nothing, whatever the other variables say', async () => {
    const { page } = await tracedRequests({
      OTEL_SDK_DISABLED: 'true',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
    });
    expect(page.statusCode).toBe(200);
    expect(receiver.received.splice(0)).toEqual([]);
    // The control: the same without it sends.
    await tracedRequests({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` });
    expect(receiver.received.splice(0).length).toBeGreaterThan(0);
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
