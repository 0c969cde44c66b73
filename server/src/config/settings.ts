// Every setting of the server, declared once: its variable, kind (type and bounds), default and meaning.
// config.ts reads and checks the environment with it, `loadfeed-server start --help` lists it and
// server/README.md's configuration table is generated from it (`npm run docs:config -w @loadfeed/server`;
// test/config/docs.test.ts fails when the table differs). The order is the table's.
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, PAGE_SIZE_CEILING, RATE_WINDOW_SECONDS } from '@loadfeed/spec';
import { address, folder, httpUrl, keyValues, names, oneOf, optionalOneOf, optionalText, optionalWholeNumber, origins, postgresUrl, postgresUrls, wholeNumber, type Setting } from './kinds.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The longest a bound in milliseconds may be: ten minutes. */
const MAX_MS = 600_000;
const READ_REPLICAS = { heading: 'Read replicas', anchor: 'read-replicas-streaming-standbys' };
const TRACING = { heading: 'Tracing', anchor: 'tracing' };

export const SETTINGS = {
  port: wholeNumber({ env: 'PORT', min: 0, max: 65535, default: 3000, meaning: 'Port to listen on (0 picks a free one)' }),
  host: address({ env: 'HOST', default: '127.0.0.1', meaning: 'Address to listen on (`0.0.0.0` behind a load balancer)' }),
  databaseUrl: postgresUrl({
    env: 'DATABASE_URL',
    meaning: 'The PostgreSQL the server uses. Unset: `start` runs an embedded PostgreSQL; every other command needs it (or `--database-url`)',
  }),
  databaseDirectUrl: postgresUrl({
    env: 'DATABASE_DIRECT_URL',
    defaultFrom: 'DATABASE_URL',
    meaning:
      "PostgreSQL itself, for session-level work: migrations, the start-up check and the feed index's renewal. Set it when `DATABASE_URL` goes through a transaction-mode pooler",
    see: { heading: 'PgBouncer', anchor: 'pgbouncer-in-transaction-mode' },
  }),
  databaseReplicaUrls: postgresUrls({
    env: 'DATABASE_REPLICA_URLS',
    meaning: 'Streaming standbys of `DATABASE_URL`: pages are read on them when current enough',
    see: READ_REPLICAS,
  }),
  metricsPort: optionalWholeNumber({
    env: 'METRICS_PORT',
    min: 0,
    max: 65535,
    meaning: 'Port of the Prometheus metrics listener (`GET /metrics`, on `METRICS_HOST`); unset: none',
    see: { heading: 'Metrics', anchor: 'metrics' },
  }),
  metricsHost: address({
    env: 'METRICS_HOST',
    default: '127.0.0.1',
    meaning: 'Address of the metrics listener: loopback, whatever `HOST` is, unless set (it answers without a key)',
  }),
  databaseReplicaNames: names({
    env: 'DATABASE_REPLICA_NAMES',
    pattern: /^[A-Za-z0-9._-]{1,64}$/,
    patternText: '1-64 letters, digits, ".", "_" or "-"',
    defaultText: '`standby-1`, `standby-2`, …',
    onePerItemOf: 'DATABASE_REPLICA_URLS',
    meaning: 'What the public `/readyz` calls each standby of `DATABASE_REPLICA_URLS`, in order, one name per standby (never its address)',
  }),
  rateLimitPerMinute: wholeNumber({
    env: 'RATE_LIMIT_PER_MINUTE',
    min: 1,
    default: DEFAULT_RATE_LIMIT,
    meaning: `Requests per rolling ${RATE_WINDOW_SECONDS} s for keys without a limit of their own`,
  }),
  maxPageSize: wholeNumber({
    env: 'MAX_PAGE_SIZE',
    min: 1,
    max: PAGE_SIZE_CEILING,
    default: DEFAULT_MAX_PAGE_SIZE,
    meaning: 'Largest page served; larger requests clamp to it and the envelope says so',
  }),
  corsOrigins: origins({
    env: 'CORS_ORIGINS',
    meaning:
      'Web origins whose pages may call the API from a browser (CORS: `Authorization` allowed, the rate-limit, `Retry-After`, `X-Request-Id`, `Date` and settled-through headers readable, never credentials); unset: none',
    see: { heading: 'Browsers (CORS)', anchor: 'browsers-cors' },
  }),
  logLevel: oneOf({ env: 'LOG_LEVEL', values: LOG_LEVELS, default: 'info', meaning: 'The least severe level the log writes' }),
  dataDir: folder({ env: 'LOADFEED_DATA_DIR', default: '.loadfeed', meaning: 'Where the embedded PostgreSQL keeps its data (relative to the working directory)' }),
  dbPoolSize: wholeNumber({
    env: 'DB_POOL_SIZE',
    min: 1,
    max: 1000,
    default: 10,
    meaning: 'Connections this instance opens to the primary at most, and so requests at the database at once',
  }),
  dbStatementTimeoutMs: wholeNumber({
    env: 'DB_STATEMENT_TIMEOUT_MS',
    min: 100,
    max: MAX_MS,
    default: 5_000,
    meaning: "PostgreSQL's `statement_timeout` for the server's sessions; each query's client-side deadline is this plus 1 s",
  }),
  dbLockTimeoutMs: wholeNumber({ env: 'DB_LOCK_TIMEOUT_MS', min: 10, max: MAX_MS, default: 2_000, meaning: "PostgreSQL's `lock_timeout` for the server's sessions" }),
  dbConnectTimeoutMs: wholeNumber({
    env: 'DB_CONNECT_TIMEOUT_MS',
    min: 100,
    max: MAX_MS,
    default: 5_000,
    meaning: 'How long opening (or waiting for) a database connection may take',
  }),
  maxQueuedRequests: wholeNumber({
    env: 'MAX_QUEUED_REQUESTS',
    min: 0,
    max: 100_000,
    default: 500,
    meaning: 'Feed requests that may wait for a turn at the database; one more gets a 503 at once',
  }),
  maxQueueWaitMs: wholeNumber({
    env: 'MAX_QUEUE_WAIT_MS',
    min: 10,
    max: MAX_MS,
    default: 2_000,
    meaning: 'How long a feed request may wait for its turn before it gets a 503',
  }),
  headersTimeoutMs: wholeNumber({
    env: 'HEADERS_TIMEOUT_MS',
    min: 1_000,
    max: MAX_MS,
    default: 20_000,
    meaning: "How long a client may take to send a request's headers before it gets a 408",
  }),
  dbReplicaPoolSize: wholeNumber({
    env: 'DB_REPLICA_POOL_SIZE',
    min: 1,
    max: 1000,
    defaultFrom: 'DB_POOL_SIZE',
    meaning: 'Connections this instance opens to each standby at most',
    see: READ_REPLICAS,
  }),
  dbReplicaStatementTimeoutMs: wholeNumber({
    env: 'DB_REPLICA_STATEMENT_TIMEOUT_MS',
    min: 100,
    max: MAX_MS,
    default: 2_000,
    meaning:
      "A standby's `statement_timeout` (or `DB_STATEMENT_TIMEOUT_MS`, if shorter): the standby cancels a page's statement past it, and the page is read on the next database",
    see: READ_REPLICAS,
  }),
  dbReplicaConnectTimeoutMs: wholeNumber({
    env: 'DB_REPLICA_CONNECT_TIMEOUT_MS',
    min: 100,
    max: MAX_MS,
    default: 1_000,
    meaning: 'How long a standby may take to give a connection before it is taken for down and the page read on the next database',
    see: READ_REPLICAS,
  }),
  dbReplicaRetryMs: wholeNumber({
    env: 'DB_REPLICA_RETRY_MS',
    min: 10,
    max: MAX_MS,
    default: 1_000,
    meaning: 'How long a standby that failed is passed over before pages try it again (a check that it answers brings it back sooner)',
    see: READ_REPLICAS,
  }),
  dbCheckIntervalMs: wholeNumber({
    env: 'DB_CHECK_INTERVAL_MS',
    min: 100,
    max: MAX_MS,
    default: 1_000,
    meaning:
      "How often the primary (on a connection of its own: while it does not answer, the feed answers 500 at once) and each standby (state and replay lag) are checked",
    see: READ_REPLICAS,
  }),
  dbCheckTimeoutMs: wholeNumber({
    env: 'DB_CHECK_TIMEOUT_MS',
    min: 100,
    max: MAX_MS,
    default: 2_000,
    meaning: "How long a check (and `/readyz`) waits for a database's answer before taking it for down",
    see: READ_REPLICAS,
  }),
  otelSdkDisabled: oneOf({
    env: 'OTEL_SDK_DISABLED',
    values: ['false', 'true'] as const,
    default: 'false',
    meaning: '`true`: no traces, whatever the other `OTEL_*` variables say',
    see: TRACING,
  }),
  otelTracesExporter: optionalOneOf({
    env: 'OTEL_TRACES_EXPORTER',
    values: ['none', 'otlp', 'console'] as const,
    defaultText: '`otlp` when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else `none`',
    meaning: "Where OpenTelemetry traces go: `none` (off: no OpenTelemetry module is loaded), an OTLP receiver, or stdout",
    see: TRACING,
  }),
  otelExporterOtlpTracesEndpoint: httpUrl({
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    meaning: "The OTLP/HTTP receiver's URL for traces, used as it is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`",
    see: TRACING,
  }),
  otelExporterOtlpEndpoint: httpUrl({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    meaning: 'The OTLP/HTTP receiver; traces go to its `/v1/traces`',
    see: TRACING,
  }),
  otelExporterOtlpProtocol: oneOf({
    env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    values: ['http/protobuf', 'http/json'] as const,
    default: 'http/protobuf',
    meaning: 'How traces are sent to the OTLP receiver',
    see: TRACING,
  }),
  otelServiceName: optionalText({
    env: 'OTEL_SERVICE_NAME',
    defaultText: "`OTEL_RESOURCE_ATTRIBUTES`'s `service.name`, else `loadfeed-server`",
    pattern: /^[\x21-\x7e]{1,128}$/,
    patternText: '1-128 printable ASCII characters without spaces',
    meaning: "The traces' `service.name`",
    see: TRACING,
  }),
  otelResourceAttributes: keyValues({
    env: 'OTEL_RESOURCE_ATTRIBUTES',
    meaning: "More attributes of the traces' resource (`deployment.environment.name=prod,…`); `service.version` is always the server's own",
    see: TRACING,
  }),
  serverTiming: oneOf({
    env: 'SERVER_TIMING',
    values: ['off', 'on'] as const,
    default: 'off',
    meaning: 'A `Server-Timing` header on feed responses: the milliseconds of the admission, the page and the count statements',
    see: TRACING,
  }),
} satisfies Record<string, Setting<unknown>>;

type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** The server's configuration: one value per setting, checked and with its default. */
export type Config = { [K in keyof typeof SETTINGS]: ValueOf<(typeof SETTINGS)[K]> };
