// When a command fails in a way a wrong base URL causes (a 404, a page that is not the API's JSON, a
// connection that speaks the other protocol), one or two requests for the OpenAPI document (no key, no
// quota: @loadfeed/spec/base-url) tell whether the base URL is the mistake, and what to use instead; the
// command then says that rather than "404: Not found". A base URL that checks out leaves the failure as it was.
import { describeVerdict, probeBaseUrl } from '@loadfeed/spec/base-url';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  LoadfeedError,
  NoProgressError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  WaitTooLongError,
} from '../errors.js';
import { ENV_BASE_URL } from './command.js';

/** Failures that come from a deployment that answered as the API does: its base URL is right. */
const ANSWERED_AS_THE_API = [AbortError, AuthenticationError, BadRequestError, RateLimitError, ServerError, TimeoutError];

/** The SDK's bounds against whatever answers: each names what it refused, which says more than a probe of that
 * same server would (and a probe would ask it once more). */
const REFUSED_BY_A_BOUND = [NoProgressError, RedirectError, ResponseTooLargeError, WaitTooLongError];

/** The base URL a command line used: its --base-url, else the environment's. */
function baseUrlOf(args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === '--base-url') return args[index + 1];
    if (arg.startsWith('--base-url=')) return arg.slice('--base-url='.length);
  }
  return env[ENV_BASE_URL];
}

/** The line that names the base-URL mistake behind `error`, or undefined when the base URL is not to blame. */
export async function baseUrlMistake(error: unknown, args: readonly string[], env: NodeJS.ProcessEnv, fetch?: typeof globalThis.fetch): Promise<string | undefined> {
  if (!(error instanceof LoadfeedError)) return undefined;
  if ([...ANSWERED_AS_THE_API, ...REFUSED_BY_A_BOUND].some((kind) => error instanceof kind)) return undefined;
  const baseUrl = baseUrlOf(args, env);
  if (baseUrl === undefined || !URL.canParse(baseUrl)) return undefined;
  const verdict = await probeBaseUrl(baseUrl, fetch ? { fetch } : {});
  // A JSON API that lacks the document may well be the deployment: its own failure says more.
  if (verdict.ok || !verdict.conclusive) return undefined;
  // An unreachable address is said best by the failure itself, which names the host, the port and the cause.
  if (error instanceof ConnectionError && verdict.suggestion === undefined) return undefined;
  return `the base URL is wrong: ${describeVerdict(verdict)}`;
}
