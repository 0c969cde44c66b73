// The server's configuration, read from the environment once at start and validated against a schema
// kept here, so that a wrong value stops the start with a message naming it.
import { resolve } from 'node:path';
import Joi from 'joi';
import { PAGE_SIZE_CEILING } from '@loadfeed/spec';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** Absent: the operator CLI's `start` runs an embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | undefined;
  /** The limit of a key that has none of its own, per rolling 60 seconds. */
  rateLimitPerMinute: number;
  /** The largest page size served; larger requests clamp to it (at most the contract's ceiling). */
  maxPageSize: number;
  logLevel: LogLevel;
  /** Where the embedded PostgreSQL and other local state live. */
  dataDir: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const schema = Joi.object({
  PORT: Joi.number().integer().min(0).max(65535).default(3000).messages({
    '*': 'PORT must be a whole number from 0 to 65535 (got {{#value}})',
  }),
  HOST: Joi.string().trim().min(1).default('127.0.0.1').messages({ '*': 'HOST must be a host name or address' }),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .empty('')
    .messages({ '*': 'DATABASE_URL must be a postgres:// or postgresql:// connection string' }),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(10).messages({
    '*': 'RATE_LIMIT_PER_MINUTE must be a whole number of at least 1 (got {{#value}})',
  }),
  MAX_PAGE_SIZE: Joi.number().integer().min(1).max(PAGE_SIZE_CEILING).default(100).messages({
    '*': `MAX_PAGE_SIZE must be a whole number from 1 to ${PAGE_SIZE_CEILING} (got {{#value}})`,
  }),
  LOG_LEVEL: Joi.string()
    .valid(...LOG_LEVELS)
    .default('info')
    .messages({ '*': `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got {{#value}})` }),
  LOADFEED_DATA_DIR: Joi.string().min(1).default('.loadfeed'),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: true });

interface ValidatedEnvironment {
  PORT: number;
  HOST: string;
  DATABASE_URL?: string;
  RATE_LIMIT_PER_MINUTE: number;
  MAX_PAGE_SIZE: number;
  LOG_LEVEL: LogLevel;
  LOADFEED_DATA_DIR: string;
}

/** Reads the configuration from an environment; throws a ConfigError naming every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  // An empty variable means "not set", as a shell's `PORT= cmd` intends.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const { value, error } = schema.validate(given) as { value: ValidatedEnvironment; error?: Joi.ValidationError };
  if (error) throw new ConfigError(error.details.map((detail) => detail.message));
  return {
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    maxPageSize: value.MAX_PAGE_SIZE,
    logLevel: value.LOG_LEVEL,
    dataDir: resolve(cwd, value.LOADFEED_DATA_DIR),
  };
}
