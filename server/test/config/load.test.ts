import { resolve } from 'node:path';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, standbyOptionsOf } from '../../src/config/load.js';
import { SETTINGS } from '../../src/config/settings.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}, '/srv')).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      databaseReplicaUrls: [],
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      databaseReplicaNames: undefined,
      rateLimitPerMinute: DEFAULT_RATE_LIMIT,
      maxPageSize: DEFAULT_MAX_PAGE_SIZE,
      corsOrigins: [],
      logLevel: 'info',
      dataDir: resolve('/srv', '.loadfeed'),
      dbPoolSize: 10,
      dbStatementTimeoutMs: 5_000,
      dbLockTimeoutMs: 2_000,
      dbConnectTimeoutMs: 5_000,
      maxQueuedRequests: 500,
      maxQueueWaitMs: 2_000,
      headersTimeoutMs: 20_000,
      dbReplicaPoolSize: 10,
      dbReplicaStatementTimeoutMs: 2_000,
      dbReplicaConnectTimeoutMs: 1_000,
      dbReplicaRetryMs: 1_000,
      dbCheckIntervalMs: 1_000,
      dbCheckTimeoutMs: 2_000,
      otelSdkDisabled: 'false',
      otelTracesExporter: undefined,
      otelExporterOtlpTracesEndpoint: undefined,
      otelExporterOtlpEndpoint: undefined,
      otelExporterOtlpProtocol: 'http/protobuf',
      otelServiceName: undefined,
      otelResourceAttributes: {},
      serverTiming: 'off',
    });
  });

  it('reads the OpenTelemetry variables and SERVER_TIMING, and names a bad one', () => {
    expect(
      loadConfig(
        {
          OTEL_TRACES_EXPORTER: 'console',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'feed-east',
          SERVER_TIMING: 'on',
        },
        '/srv',
      ),
    ).toMatchObject({ otelTracesExporter: 'console', otelExporterOtlpEndpoint: 'http://collector:4318', otelExporterOtlpProtocol: 'http/json', otelServiceName: 'feed-east', serverTiming: 'on' });
    expect(
      loadConfig(
        {
          OTEL_SDK_DISABLED: 'true',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector:4318/custom/traces',
          OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod, team=feed%2Cops%3Deast ,empty=',
        },
        '/srv',
      ),
    ).toMatchObject({
      otelSdkDisabled: 'true',
      otelExporterOtlpTracesEndpoint: 'https://collector:4318/custom/traces',
      otelResourceAttributes: { 'deployment.environment.name': 'prod', team: 'feed,ops=east', empty: '' },
    });
    for (const bad of ['no-equals', 'a=b=c', 'bad=%E0%A4%A']) {
      expect(problemsOf({ OTEL_RESOURCE_ATTRIBUTES: `ok=1,${bad}` })).toEqual([
        'OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas (a comma, "=" or "%" in a value percent-encoded)',
      ]);
    }
    expect(problemsOf({ OTEL_SDK_DISABLED: 'yes', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toEqual([
      'OTEL_SDK_DISABLED must be one of false, true (got yes)',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL',
    ]);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', SERVER_TIMING: 'yes' }, '/srv')).toThrow(
      /OTEL_TRACES_EXPORTER must be one of none, otlp, console[\s\S]*OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json[\s\S]*SERVER_TIMING must be one of off, on/,
    );
  });

  it("reads the standbys' bounds and the check's; a standby's pool is the primary's size unless given", () => {
    expect(loadConfig({ DB_POOL_SIZE: '25' }, '/srv')).toMatchObject({ dbPoolSize: 25, dbReplicaPoolSize: 25 });
    expect(
      loadConfig(
        {
          DB_POOL_SIZE: '25',
          DB_REPLICA_POOL_SIZE: '40',
          DB_REPLICA_STATEMENT_TIMEOUT_MS: '1500',
          DB_REPLICA_CONNECT_TIMEOUT_MS: '300',
          DB_REPLICA_RETRY_MS: '5000',
          DB_CHECK_INTERVAL_MS: '250',
          DB_CHECK_TIMEOUT_MS: '750',
        },
        '/srv',
      ),
    ).toMatchObject({
      dbReplicaPoolSize: 40,
      dbReplicaStatementTimeoutMs: 1_500,
      dbReplicaConnectTimeoutMs: 300,
      dbReplicaRetryMs: 5_000,
      dbCheckIntervalMs: 250,
      dbCheckTimeoutMs: 750,
    });
    expect(problemsOf({ DB_REPLICA_POOL_SIZE: '0', DB_CHECK_INTERVAL_MS: 'often' })).toEqual([
      'DB_REPLICA_POOL_SIZE must be a whole number from 1 to 1000 (got 0)',
      'DB_CHECK_INTERVAL_MS must be a whole number from 100 to 600000 (got often)',
    ]);
  });

  it("gives a standby's sessions the shorter of the two statement timeouts", () => {
    expect(standbyOptionsOf(loadConfig({}, '/srv'))).toEqual({ max: 10, statementTimeoutMs: 2_000, connectTimeoutMs: 1_000, retryMs: 1_000, names: undefined });
    expect(standbyOptionsOf(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '300' }, '/srv'))).toMatchObject({ statementTimeoutMs: 300 });
  });

  it('reads every variable', () => {
    expect(
      loadConfig(
        { PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: 'postgres://u@db:5432/feed', RATE_LIMIT_PER_MINUTE: '60', MAX_PAGE_SIZE: '1000', LOG_LEVEL: 'warn', LOADFEED_DATA_DIR: '/var/lib/loadfeed' },
        '/srv',
      ),
    ).toMatchObject({ port: 8080, host: '0.0.0.0', databaseUrl: 'postgres://u@db:5432/feed', rateLimitPerMinute: 60, maxPageSize: 1000, logLevel: 'warn', dataDir: '/var/lib/loadfeed' });
  });

  it('reads the database bounds and the overload and header limits', () => {
    expect(
      loadConfig(
        {
          DB_POOL_SIZE: '20',
          DB_STATEMENT_TIMEOUT_MS: '3000',
          DB_LOCK_TIMEOUT_MS: '500',
          DB_CONNECT_TIMEOUT_MS: '1500',
          MAX_QUEUED_REQUESTS: '0',
          MAX_QUEUE_WAIT_MS: '250',
          HEADERS_TIMEOUT_MS: '5000',
        },
        '/srv',
      ),
    ).toMatchObject({
      dbPoolSize: 20,
      dbStatementTimeoutMs: 3_000,
      dbLockTimeoutMs: 500,
      dbConnectTimeoutMs: 1_500,
      maxQueuedRequests: 0,
      maxQueueWaitMs: 250,
      headersTimeoutMs: 5_000,
    });
  });

  it('reads the direct URL (default: DATABASE_URL), the standbys as a comma-separated list and the metrics port', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@bouncer:6432/feed' }, '/srv')).toMatchObject({ databaseDirectUrl: 'postgres://u@bouncer:6432/feed', databaseReplicaUrls: [] });
    expect(
      loadConfig(
        {
          DATABASE_URL: 'postgres://u@bouncer:6432/feed',
          DATABASE_DIRECT_URL: 'postgres://u@db1:5432/feed',
          DATABASE_REPLICA_URLS: 'postgres://u@db2:5432/feed, postgresql://u@db3:5432/feed',
          METRICS_PORT: '9464',
        },
        '/srv',
      ),
    ).toMatchObject({
      databaseDirectUrl: 'postgres://u@db1:5432/feed',
      databaseReplicaUrls: ['postgres://u@db2:5432/feed', 'postgresql://u@db3:5432/feed'],
      metricsPort: 9464,
    });
    expect(problemsOf({ DATABASE_REPLICA_URLS: 'postgres://u@db2/feed,mysql://x', METRICS_PORT: '99999', DATABASE_DIRECT_URL: 'x' })).toEqual([
      'DATABASE_DIRECT_URL must be a postgres:// or postgresql:// connection string',
      'DATABASE_REPLICA_URLS must be postgres:// or postgresql:// connection strings separated by commas',
      'METRICS_PORT must be a whole number from 0 to 65535 (got 99999)',
    ]);
  });

  it('reads the metrics address, loopback unless given, and the standbys\' public names, one per standby', () => {
    expect(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0' }, '/srv')).toMatchObject({ host: '0.0.0.0', metricsHost: '127.0.0.1' });
    expect(loadConfig({ METRICS_HOST: '10.0.0.5' }, '/srv')).toMatchObject({ metricsHost: '10.0.0.5' });
    const standbys = 'postgres://u@db2/feed,postgres://u@db3/feed';
    expect(loadConfig({ DATABASE_REPLICA_URLS: standbys, DATABASE_REPLICA_NAMES: 'east, west' }, '/srv')).toMatchObject({ databaseReplicaNames: ['east', 'west'] });
    expect(problemsOf({ DATABASE_REPLICA_URLS: standbys, DATABASE_REPLICA_NAMES: 'east' })).toEqual([
      'DATABASE_REPLICA_NAMES must name each of the 2 standbys of DATABASE_REPLICA_URLS, in order (got 1 names)',
    ]);
    expect(problemsOf({ DATABASE_REPLICA_URLS: standbys, DATABASE_REPLICA_NAMES: 'east,db2:5432/feed' })).toEqual([
      'DATABASE_REPLICA_NAMES must be names of 1-64 letters, digits, ".", "_" or "-", separated by commas, one per standby, each once',
    ]);
    expect(problemsOf({ DATABASE_REPLICA_URLS: standbys, DATABASE_REPLICA_NAMES: 'east,east' })).toHaveLength(1);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }, '/srv')).toMatchObject({ port: 3000, databaseUrl: undefined });
  });

  it('names every bad value in one error, each with what it must be', () => {
    const problems = problemsOf({ PORT: 'eighty', RATE_LIMIT_PER_MINUTE: '0', MAX_PAGE_SIZE: String(PAGE_SIZE_CEILING + 1), LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(problems).toHaveLength(5);
    expect(problems).toEqual(
      expect.arrayContaining([
        'PORT must be a whole number from 0 to 65535 (got eighty)',
        'RATE_LIMIT_PER_MINUTE must be a whole number of at least 1 (got 0)',
        `MAX_PAGE_SIZE must be a whole number from 1 to ${PAGE_SIZE_CEILING} (got ${PAGE_SIZE_CEILING + 1})`,
        expect.stringMatching(/^LOG_LEVEL must be one of .* \(got loud\)$/),
        'DATABASE_URL must be a postgres:// or postgresql:// connection string',
      ]),
    );
  });

  it('names a bad database bound or overload limit with its range', () => {
    expect(problemsOf({ DB_STATEMENT_TIMEOUT_MS: '0', DB_POOL_SIZE: 'ten', MAX_QUEUE_WAIT_MS: '-1', HEADERS_TIMEOUT_MS: '1.5' })).toEqual(
      expect.arrayContaining([
        'DB_STATEMENT_TIMEOUT_MS must be a whole number from 100 to 600000 (got 0)',
        'DB_POOL_SIZE must be a whole number from 1 to 1000 (got ten)',
        'MAX_QUEUE_WAIT_MS must be a whole number from 10 to 600000 (got -1)',
        'HEADERS_TIMEOUT_MS must be a whole number from 1000 to 600000 (got 1.5)',
      ]),
    );
  });

  it('refuses a page size of 0 and a fractional rate limit', () => {
    expect(problemsOf({ MAX_PAGE_SIZE: '0' })).toHaveLength(1);
    expect(problemsOf({ RATE_LIMIT_PER_MINUTE: '2.5' })).toHaveLength(1);
  });

  it('reads every whole number within the bounds the documentation gives a setting, and refuses one outside them naming the variable', () => {
    // The bounds as the README's table and --help state them: "0-65535", or "a whole number, at least 1".
    const wholeNumbers = Object.entries(SETTINGS).flatMap(([key, setting]) => {
      const range = /^(\d+)-(\d+)$/.exec(setting.accepts);
      const atLeast = /^a whole number, at least (\d+)$/.exec(setting.accepts);
      if (range) return [{ key, env: setting.env, min: Number(range[1]), max: Number(range[2]) }];
      if (atLeast) return [{ key, env: setting.env, min: Number(atLeast[1]), max: Number.MAX_SAFE_INTEGER }];
      return [];
    });
    expect(wholeNumbers.map((setting) => setting.env)).toEqual(expect.arrayContaining(['PORT', 'RATE_LIMIT_PER_MINUTE', 'DB_REPLICA_POOL_SIZE', 'DB_CHECK_TIMEOUT_MS']));
    const aSetting = fc.constantFrom(...wholeNumbers);
    fc.assert(
      fc.property(aSetting, fc.integer({ min: 0, max: 1e9 }), (setting, offset) => {
        const within = setting.min + (offset % (setting.max - setting.min + 1));
        expect(loadConfig({ [setting.env]: String(within) }, '/srv')).toMatchObject({ [setting.key]: within });
      }),
    );
    fc.assert(
      fc.property(aSetting, fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (setting, by, below) => {
        if (!below && setting.max === Number.MAX_SAFE_INTEGER) return;
        const outside = below ? setting.min - by : setting.max + by;
        const problems = problemsOf({ [setting.env]: String(outside) });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(new RegExp(`^${setting.env} must be a whole number .*\\(got ${outside}\\)$`));
      }),
    );
  });
});
