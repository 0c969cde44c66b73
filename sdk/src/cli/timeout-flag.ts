// `--timeout <seconds>`: how long one request may take, its body included, before it is a timeout (and
// retried like a 5xx). Seconds, as people say it; a fraction is allowed. Without it: the SDK's default.
import { DEFAULT_TIMEOUT_MS } from '../timeout.js';
import { UsageError } from './command.js';

export const TIMEOUT_OPTION = { timeout: { type: 'string' } } as const;

export const TIMEOUT_HELP = `  --timeout <seconds>  How long one request may take, its body included, before it is retried
                       (default ${DEFAULT_TIMEOUT_MS / 1000})`;

/** The flag as the client's timeoutMs, or undefined for the default. */
export function timeoutMsOf(value: string | undefined, commandName: string): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!Number.isSafeInteger(ms) || ms < 1) throw new UsageError(`--timeout must be a number of seconds above 0 (got ${JSON.stringify(value)})`, commandName);
  return ms;
}
