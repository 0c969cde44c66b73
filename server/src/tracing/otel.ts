// The OpenTelemetry side of ./observe.ts, imported only when traces are on: a tracer provider of this
// server's own (not the process's global one, so that several servers in one process keep theirs), the
// exporter OTEL_TRACES_EXPORTER names (OTLP over HTTP, protobuf or JSON, batched; or the console, span by
// span), and the W3C trace context an incoming `traceparent` carries. The receiver's URL and the resource
// come from the configuration (config/settings.ts); the OTLP exporter reads the rest of the standard
// OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
import { readFileSync } from 'node:fs';
import type { Request } from '@hapi/hapi';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { RequestSpans, RequestTracer } from './observe.js';

/** This server's version (its package.json, beside src/ and dist/ alike). */
const SERVER_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The receiver's URL for traces, as the OpenTelemetry standard orders them: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
 * as it is, else OTEL_EXPORTER_OTLP_ENDPOINT's `/v1/traces`; undefined: the exporter's own default
 * (http://localhost:4318/v1/traces).
 */
export function tracesUrlOf(config: Pick<Config, 'otelExporterOtlpTracesEndpoint' | 'otelExporterOtlpEndpoint'>): string | undefined {
  if (config.otelExporterOtlpTracesEndpoint !== undefined) return config.otelExporterOtlpTracesEndpoint;
  return config.otelExporterOtlpEndpoint === undefined ? undefined : `${config.otelExporterOtlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The traces' resource: OTEL_RESOURCE_ATTRIBUTES, with `service.name` from OTEL_SERVICE_NAME when set (the
 * standard's order), and `service.version` always this server's own: during a rolling upgrade the
 * instances share one environment but not one release, and a trace must say which release served it.
 */
export function resourceAttributesOf(config: Pick<Config, 'otelResourceAttributes' | 'otelServiceName'>): Record<string, string> {
  const attributes = config.otelResourceAttributes;
  return { ...attributes, 'service.name': config.otelServiceName ?? attributes['service.name'] ?? 'loadfeed-server', 'service.version': SERVER_VERSION };
}

async function otlpExporter(config: Config, url: string | undefined): Promise<SpanExporter> {
  const options = url === undefined ? {} : { url };
  if (config.otelExporterOtlpProtocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

export async function createRequestTracer(config: Config, exporterName: 'otlp' | 'console', logger: Logger): Promise<RequestTracer> {
  const url = exporterName === 'otlp' ? tracesUrlOf(config) : undefined;
  const exporter = exporterName === 'console' ? new ConsoleSpanExporter() : await otlpExporter(config, url);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resourceAttributesOf(config)),
    spanProcessors: [exporterName === 'console' ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@loadfeed/server');
  const propagator = new W3CTraceContextPropagator();
  logger.info({ exporter: exporterName, endpoint: url }, 'OpenTelemetry traces on');

  return {
    requestStarted(request: Request): RequestSpans {
      const method = request.method.toUpperCase();
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
      const server = tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'url.path': request.path,
            ...(request.app.requestId ? { 'http.request.header.x-request-id': [request.app.requestId] } : {}),
          },
        },
        parent,
      );
      const serverContext = trace.setSpan(parent, server);
      let route: Span | undefined;
      let routeContext = serverContext;
      return {
        routeStarted(routePath) {
          server.updateName(`${method} ${routePath}`);
          server.setAttribute('http.route', routePath);
          route = tracer.startSpan(`route ${method} ${routePath}`, { kind: SpanKind.INTERNAL }, serverContext);
          routeContext = trace.setSpan(serverContext, route);
        },
        statementStarted(name) {
          const statement = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.query.summary': name } }, routeContext);
          return (error) => {
            if (error) statement.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
            statement.end();
          };
        },
        ended(status) {
          route?.end();
          if (status !== undefined) server.setAttribute('http.response.status_code', status);
          if (status === undefined || status >= 500) server.setStatus({ code: SpanStatusCode.ERROR });
          server.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
