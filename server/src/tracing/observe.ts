// What the server tells of each request beyond its log line, when asked: OpenTelemetry traces (a span for
// the HTTP request, continuing an incoming W3C traceparent, one for its route, and one for each PostgreSQL
// statement: the admission, the page, the count) when OTEL_TRACES_EXPORTER or an OTLP endpoint say so and
// OTEL_SDK_DISABLED does not forbid it, and a Server-Timing header with the statements' milliseconds when SERVER_TIMING=on. Both off (the
// default): nothing is registered, no statement is wrapped and no OpenTelemetry module is loaded, which is
// only imported (./otel.ts) when traces are on.
import type { Request, Server } from '@hapi/hapi';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { StatementName } from './statements.js';

/** A request's spans (./otel.ts). */
export interface RequestSpans {
  routeStarted(routePath: string): void;
  statementStarted(name: StatementName): (error: Error | undefined) => void;
  ended(status: number | undefined): void;
}

export interface RequestTracer {
  requestStarted(request: Request): RequestSpans;
  shutdown(): Promise<void>;
}

/**
 * Where traces go: nowhere with OTEL_SDK_DISABLED=true, whatever else is set (the OpenTelemetry standard's
 * switch); else OTEL_TRACES_EXPORTER, else an OTLP receiver when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT names one.
 */
export function tracesExporterOf(
  config: Pick<Config, 'otelSdkDisabled' | 'otelTracesExporter' | 'otelExporterOtlpTracesEndpoint' | 'otelExporterOtlpEndpoint'>,
): 'none' | 'otlp' | 'console' {
  if (config.otelSdkDisabled === 'true') return 'none';
  const endpoint = config.otelExporterOtlpTracesEndpoint ?? config.otelExporterOtlpEndpoint;
  return config.otelTracesExporter ?? (endpoint !== undefined ? 'otlp' : 'none');
}

interface Observation {
  spans: RequestSpans | undefined;
  /** Milliseconds spent in each kind of statement, for Server-Timing. */
  timings: Map<StatementName, number> | undefined;
}

/** How long a stop waits for the last traces to be sent. */
const SHUTDOWN_FLUSH_MS = 2_000;

/** Server-Timing's metrics, in the order a request runs them. */
const TIMED: readonly StatementName[] = ['admission', 'count', 'page'];

/** Registers the traces and Server-Timing on `server`, as `config` asks; does nothing when both are off. */
export async function observeRequests(server: Server, config: Config, logger: Logger): Promise<void> {
  const exporter = tracesExporterOf(config);
  const timing = config.serverTiming === 'on';
  if (exporter === 'none' && !timing) return;
  const tracer = exporter === 'none' ? undefined : await (await import('./otel.js')).createRequestTracer(config, exporter, logger);
  const observations = new WeakMap<Request, Observation>();

  server.ext('onRequest', (request, h) => {
    const observation: Observation = { spans: tracer?.requestStarted(request), timings: timing ? new Map() : undefined };
    observations.set(request, observation);
    request.app.statements = {
      started(name) {
        const endSpan = observation.spans?.statementStarted(name);
        return (durationMs, error) => {
          observation.timings?.set(name, (observation.timings.get(name) ?? 0) + durationMs);
          endSpan?.(error);
        };
      },
    };
    return h.continue;
  });
  if (tracer) {
    server.ext('onPreAuth', (request, h) => {
      observations.get(request)?.spans?.routeStarted(request.route.path);
      return h.continue;
    });
    server.events.on('response', (request) => {
      const { response } = request;
      observations.get(request)?.spans?.ended(response && 'statusCode' in response ? response.statusCode : undefined);
    });
    // The spans still batched are sent on the way out; a receiver that does not take them delays the stop
    // by SHUTDOWN_FLUSH_MS at most, and is logged, never thrown.
    server.ext('onPostStop', async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS, 'late')));
      const flushed = tracer.shutdown().then(
        () => 'sent',
        (error: unknown) => logger.warn({ err: error }, 'the last traces could not be sent'),
      );
      if ((await Promise.race([flushed, late])) === 'late') logger.warn(`the last traces were not sent within ${SHUTDOWN_FLUSH_MS} ms`);
      clearTimeout(timer);
    });
  }
  if (timing) {
    // Registered after app.ts's own onPreResponse, so an error is already SPEC's error body here.
    server.ext('onPreResponse', (request, h) => {
      const timings = observations.get(request)?.timings;
      const { response } = request;
      if (timings && timings.size > 0 && response && 'header' in response) {
        const metrics = TIMED.filter((name) => timings.has(name)).map((name) => `${name};dur=${timings.get(name)!.toFixed(2)}`);
        if (metrics.length > 0) response.header('Server-Timing', metrics.join(', '));
      }
      return h.continue;
    });
  }
}
