// The server's configuration, read from the environment once at start and validated against a schema
// kept here, so that a wrong value stops the start with a message naming it.
import { resolve } from 'node:path';
import Joi from 'joi';
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_RATE_LIMIT, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import type { PoolOptions } from './db/pool.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** Absent: the operator CLI's `start` runs an embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  /** Migrations and other session-level work (advisory locks, concurrent index builds): PostgreSQL itself,
   * not a transaction-mode pooler. Absent: `databaseUrl`. */
  databaseDirectUrl: string | undefined;
  /** Streaming standbys of `databaseUrl` that serve page reads when current enough (db/routing.ts). */
  databaseReplicaUrls: string[];
  /** The port of the Prometheus metrics listener; absent: no listener. */
  metricsPort: number | undefined;
  /** The address the metrics listener listens on: loopback unless an operator opens it (it has no key). */
  metricsHost: string;
  /** What /readyz calls each standby of `databaseReplicaUrls`, in order; absent: `standby-1`, `standby-2`, … */
  databaseReplicaNames: string[] | undefined;
  /** The limit of a key that has none of its own, per rolling 60 seconds. */
  rateLimitPerMinute: number;
  /** The largest page size served; larger requests clamp to it (at most the contract's ceiling). */
  maxPageSize: number;
  logLevel: LogLevel;
  /** Where the embedded PostgreSQL and other local state live. */
  dataDir: string;
  /** Connections to PostgreSQL at most, and so requests at the database at once. */
  dbPoolSize: number;
  /** PostgreSQL's statement_timeout; the client-side deadline of a query is one second more (db/pool.ts). */
  dbStatementTimeoutMs: number;
  /** PostgreSQL's lock_timeout. */
  dbLockTimeoutMs: number;
  /** How long a request waits for a database connection to open. */
  dbConnectTimeoutMs: number;
  /** Requests that may wait for a turn at the database beyond the pool's; more get a 503 at once. */
  maxQueuedRequests: number;
  /** How long a request may wait for its turn before it gets a 503. */
  maxQueueWaitMs: number;
  /** How long a client may take to send a request's headers before it gets a 408. */
  headersTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A standby's public name (/readyz): no address, nothing to quote. */
const STANDBY_NAME = /^[A-Za-z0-9._-]{1,64}$/;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function wholeNumber(name: string, min: number, max: number, fallback: number): Joi.NumberSchema {
  return Joi.number()
    .integer()
    .min(min)
    .max(max)
    .default(fallback)
    .messages({ '*': `${name} must be a whole number from ${min} to ${max} (got {{#value}})` });
}

const schema = Joi.object({
  PORT: Joi.number().integer().min(0).max(65535).default(3000).messages({
    '*': 'PORT must be a whole number from 0 to 65535 (got {{#value}})',
  }),
  HOST: Joi.string().trim().min(1).default('127.0.0.1').messages({ '*': 'HOST must be a host name or address' }),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .empty('')
    .messages({ '*': 'DATABASE_URL must be a postgres:// or postgresql:// connection string' }),
  DATABASE_DIRECT_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .empty('')
    .messages({ '*': 'DATABASE_DIRECT_URL must be a postgres:// or postgresql:// connection string' }),
  DATABASE_REPLICA_URLS: Joi.array()
    .items(Joi.string().uri({ scheme: ['postgres', 'postgresql'] }).messages({ '*': 'DATABASE_REPLICA_URLS must be postgres:// or postgresql:// connection strings separated by commas' }))
    .default([])
    .messages({ '*': 'DATABASE_REPLICA_URLS must be postgres:// or postgresql:// connection strings separated by commas' }),
  METRICS_PORT: Joi.number().integer().min(0).max(65535).messages({
    '*': 'METRICS_PORT must be a whole number from 0 to 65535 (got {{#value}})',
  }),
  METRICS_HOST: Joi.string().trim().min(1).default('127.0.0.1').messages({ '*': 'METRICS_HOST must be a host name or address' }),
  DATABASE_REPLICA_NAMES: Joi.array()
    .items(Joi.string().pattern(STANDBY_NAME))
    .unique()
    .messages({ '*': `DATABASE_REPLICA_NAMES must be names of 1-64 letters, digits, ".", "_" or "-", separated by commas, one per standby, each once` }),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(DEFAULT_RATE_LIMIT).messages({
    '*': 'RATE_LIMIT_PER_MINUTE must be a whole number of at least 1 (got {{#value}})',
  }),
  MAX_PAGE_SIZE: Joi.number().integer().min(1).max(PAGE_SIZE_CEILING).default(DEFAULT_MAX_PAGE_SIZE).messages({
    '*': `MAX_PAGE_SIZE must be a whole number from 1 to ${PAGE_SIZE_CEILING} (got {{#value}})`,
  }),
  LOG_LEVEL: Joi.string()
    .valid(...LOG_LEVELS)
    .default('info')
    .messages({ '*': `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got {{#value}})` }),
  LOADFEED_DATA_DIR: Joi.string().min(1).default('.loadfeed'),
  DB_POOL_SIZE: wholeNumber('DB_POOL_SIZE', 1, 1000, 10),
  DB_STATEMENT_TIMEOUT_MS: wholeNumber('DB_STATEMENT_TIMEOUT_MS', 100, 600_000, 5_000),
  DB_LOCK_TIMEOUT_MS: wholeNumber('DB_LOCK_TIMEOUT_MS', 10, 600_000, 2_000),
  DB_CONNECT_TIMEOUT_MS: wholeNumber('DB_CONNECT_TIMEOUT_MS', 100, 600_000, 5_000),
  MAX_QUEUED_REQUESTS: wholeNumber('MAX_QUEUED_REQUESTS', 0, 100_000, 500),
  MAX_QUEUE_WAIT_MS: wholeNumber('MAX_QUEUE_WAIT_MS', 10, 600_000, 2_000),
  HEADERS_TIMEOUT_MS: wholeNumber('HEADERS_TIMEOUT_MS', 1_000, 600_000, 20_000),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: true });

interface ValidatedEnvironment {
  PORT: number;
  HOST: string;
  DATABASE_URL?: string;
  DATABASE_DIRECT_URL?: string;
  DATABASE_REPLICA_URLS: string[];
  METRICS_PORT?: number;
  METRICS_HOST: string;
  DATABASE_REPLICA_NAMES?: string[];
  RATE_LIMIT_PER_MINUTE: number;
  MAX_PAGE_SIZE: number;
  LOG_LEVEL: LogLevel;
  LOADFEED_DATA_DIR: string;
  DB_POOL_SIZE: number;
  DB_STATEMENT_TIMEOUT_MS: number;
  DB_LOCK_TIMEOUT_MS: number;
  DB_CONNECT_TIMEOUT_MS: number;
  MAX_QUEUED_REQUESTS: number;
  MAX_QUEUE_WAIT_MS: number;
  HEADERS_TIMEOUT_MS: number;
}

/** Reads the configuration from an environment; throws a ConfigError naming every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  // An empty variable means "not set", as a shell's `PORT= cmd` intends.
  const given: Record<string, unknown> = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  // A list variable is comma-separated.
  for (const name of ['DATABASE_REPLICA_URLS', 'DATABASE_REPLICA_NAMES']) {
    const list = given[name];
    if (typeof list === 'string') given[name] = list.split(',').map((item) => item.trim()).filter(Boolean);
  }
  const { value, error } = schema.validate(given) as { value: ValidatedEnvironment; error?: Joi.ValidationError };
  const problems = error ? [...new Set(error.details.map((detail) => detail.message))] : [];
  const names = value.DATABASE_REPLICA_NAMES;
  if (names && !problems.some((problem) => problem.startsWith('DATABASE_REPLICA_')) && names.length !== value.DATABASE_REPLICA_URLS.length) {
    problems.push(`DATABASE_REPLICA_NAMES must name each of the ${value.DATABASE_REPLICA_URLS.length} standbys of DATABASE_REPLICA_URLS, in order (got ${names.length} names)`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    databaseDirectUrl: value.DATABASE_DIRECT_URL ?? value.DATABASE_URL,
    databaseReplicaUrls: value.DATABASE_REPLICA_URLS,
    metricsPort: value.METRICS_PORT,
    metricsHost: value.METRICS_HOST,
    databaseReplicaNames: value.DATABASE_REPLICA_NAMES,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    maxPageSize: value.MAX_PAGE_SIZE,
    logLevel: value.LOG_LEVEL,
    dataDir: resolve(cwd, value.LOADFEED_DATA_DIR),
    dbPoolSize: value.DB_POOL_SIZE,
    dbStatementTimeoutMs: value.DB_STATEMENT_TIMEOUT_MS,
    dbLockTimeoutMs: value.DB_LOCK_TIMEOUT_MS,
    dbConnectTimeoutMs: value.DB_CONNECT_TIMEOUT_MS,
    maxQueuedRequests: value.MAX_QUEUED_REQUESTS,
    maxQueueWaitMs: value.MAX_QUEUE_WAIT_MS,
    headersTimeoutMs: value.HEADERS_TIMEOUT_MS,
  };
}

/** The options of the server's pool under `config` (db/pool.ts). */
export function poolOptionsOf(config: Config): PoolOptions {
  return {
    max: config.dbPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    lockTimeoutMs: config.dbLockTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  };
}
