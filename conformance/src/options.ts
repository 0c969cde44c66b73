// The kit's inputs, read from the environment in every process of a run (the CLI, Playwright's runner and
// its worker), so that keys travel in the environment and never on a command line.
import { resolve } from 'node:path';

export const ENV = {
  baseUrl: 'LOADFEED_BASE_URL',
  apiKey: 'LOADFEED_API_KEY',
  secondKey: 'LOADFEED_SECOND_KEY',
  revokedKey: 'LOADFEED_REVOKED_KEY',
  reportDir: 'LOADFEED_REPORT_DIR',
  noExhaust: 'LOADFEED_NO_EXHAUST',
  /** Set by the CLI: its own console reporter replaces Playwright's list reporter. */
  cli: 'LOADFEED_CLI',
} as const;

export const DEFAULT_REPORT_DIR = 'loadfeed-conformance-report';

/** The keys a run may hold, by the label that evidence and the budget use instead of the secret. */
export type KeyLabel = 'primary' | 'second' | 'revoked';

export interface KitOptions {
  baseUrl: string;
  keys: Partial<Record<KeyLabel, string>>;
  reportDir: string;
  exhaust: boolean;
}

function flagSet(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Reads the options; a missing base URL or API key is a usage error with a one-line reason. */
export function readOptions(env: NodeJS.ProcessEnv = process.env): KitOptions {
  const baseUrl = env[ENV.baseUrl];
  const apiKey = env[ENV.apiKey];
  if (!baseUrl) throw new UsageError(`the base URL is missing: pass --base-url or set ${ENV.baseUrl}`);
  if (!apiKey) throw new UsageError(`the API key is missing: set ${ENV.apiKey} (or pass --api-key)`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`the base URL is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the base URL must be http or https: ${baseUrl}`);
  }
  const keys: KitOptions['keys'] = { primary: apiKey };
  if (env[ENV.secondKey] === apiKey) throw new UsageError('the second key is the API key itself; it must belong to another customer');
  if (env[ENV.revokedKey] === apiKey) throw new UsageError('the revoked key is the API key itself');
  if (env[ENV.secondKey]) keys.second = env[ENV.secondKey];
  if (env[ENV.revokedKey]) keys.revoked = env[ENV.revokedKey];
  return {
    baseUrl: url.toString().replace(/\/+$/, ''),
    keys,
    reportDir: resolve(env[ENV.reportDir] || DEFAULT_REPORT_DIR),
    exhaust: !flagSet(env[ENV.noExhaust]),
  };
}

/** Where a run keeps every exchange, shared by the runner and its worker (a worker restarts after a failure). */
export function exchangeLogPath(reportDir: string): string {
  return resolve(reportDir, 'exchanges.json');
}

export class UsageError extends Error {
  override name = 'UsageError';
}
