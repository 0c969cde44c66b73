// The server's configuration, read from the environment once at start and checked against the settings
// declared in config/settings.ts, so that a wrong value stops the start with a message naming it.
import type Joi from 'joi';
import type { PoolOptions } from '../db/pool.js';
import type { StandbyOptions } from '../db/standbys.js';
import type { Setting } from './kinds.js';
import { LOG_LEVELS, SETTINGS, type Config } from './settings.js';

export type { Config };
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const DECLARED: ReadonlyArray<[keyof Config, Setting<unknown>]> = Object.entries(SETTINGS) as Array<[keyof Config, Setting<unknown>]>;

/** Reads the configuration from an environment; throws a ConfigError naming every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  /** Each setting's checked value, by variable; absent when it failed its check. */
  const checked = new Map<string, unknown>();
  for (const [, setting] of DECLARED) {
    // An empty variable means "not set", as a shell's `PORT= cmd` intends.
    const text = env[setting.env] === '' ? undefined : env[setting.env];
    const given = setting.list && text !== undefined ? text.split(',').map((item) => item.trim()).filter(Boolean) : text;
    const { value, error } = setting.schema.validate(given, { abortEarly: false, convert: true }) as { value: unknown; error?: Joi.ValidationError };
    if (error) problems.push(...new Set(error.details.map((detail) => detail.message)));
    else checked.set(setting.env, value);
  }
  for (const [, setting] of DECLARED) {
    if (setting.defaultFrom !== undefined && checked.get(setting.env) === undefined) checked.set(setting.env, checked.get(setting.defaultFrom));
    const other = setting.onePerItemOf;
    const items = checked.get(setting.env) as unknown[] | undefined;
    const ofItems = other === undefined ? undefined : (checked.get(other) as unknown[] | undefined);
    if (items !== undefined && ofItems !== undefined && items.length !== ofItems.length) {
      problems.push(`${setting.env} must name each of the ${ofItems.length} standbys of ${other}, in order (got ${items.length} names)`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.fromEntries(DECLARED.map(([key, setting]) => [key, setting.finish(checked.get(setting.env), cwd)])) as Config;
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

/** The options of the standbys' pools under `config` (db/standbys.ts). */
export function standbyOptionsOf(config: Config): StandbyOptions {
  return {
    max: config.dbReplicaPoolSize,
    // A standby's statement never outlasts what the primary would allow it.
    statementTimeoutMs: Math.min(config.dbStatementTimeoutMs, config.dbReplicaStatementTimeoutMs),
    connectTimeoutMs: config.dbReplicaConnectTimeoutMs,
    retryMs: config.dbReplicaRetryMs,
    names: config.databaseReplicaNames,
  };
}
