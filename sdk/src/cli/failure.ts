// Turns whatever ended a command into the one line the user sees and the process's exit code.
import { API_KEY_PREFIX } from '@loadfeed/spec';
import { CliError } from '@loadfeed/spec/cli';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  BaseUrlError,
  ConnectionError,
  ContractError,
  LoadfeedError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '../errors.js';
import { DESTINATION_KINDS } from '../destinations.js';
import { PageContractError } from '../page-contract.js';
import { ENV_API_KEY, EXIT_CODES } from './command.js';
import { describePermissionDenial } from './permission-denial.js';

/** Anything shaped like an API key, however a message quotes it. */
const KEY_LIKE = new RegExp(`${API_KEY_PREFIX}[^\\s"'\`,;)]+`, 'gi');

export interface Failure {
  message: string;
  exitCode: number;
}

export function describeFailure(error: unknown): Failure {
  const failure = (message: string, exitCode: number = EXIT_CODES.failure): Failure => ({ message: redactKeys(firstLine(message)), exitCode });
  const withRequestId = (message: string, requestId: string | undefined) => (requestId ? `${message} (request id ${requestId})` : message);

  if (error instanceof CliError) return failure(error.message, error.exitCode);
  const denial = describePermissionDenial(error);
  if (denial !== undefined) return failure(denial);
  if (error instanceof AbortError) return failure('interrupted', EXIT_CODES.interrupted);
  if (error instanceof AuthenticationError) {
    return failure(withRequestId(`the API key was refused (401): check ${ENV_API_KEY}; a revoked or mistyped key looks the same`, error.requestId));
  }
  if (error instanceof BadRequestError) {
    const details = error.details.length > 0 ? `: ${error.details.join('; ')}` : '';
    return failure(withRequestId(`the server rejected the query (400)${details}`, error.requestId));
  }
  if (error instanceof RateLimitError) {
    return failure(withRequestId(`stopped by the rate limit, still in force after every retry (${error.message})`, error.requestId), EXIT_CODES.rateLimited);
  }
  if (error instanceof ServerError) return failure(withRequestId(`the server failed (${error.message}) after every retry`, error.requestId));
  if (error instanceof TimeoutError || error instanceof ConnectionError) return failure(`cannot reach the API: ${error.message}`);
  // The client found the base URL to be the mistake (base-url-check.ts); the flag is what a user changes here.
  if (error instanceof BaseUrlError) {
    return failure(`the base URL is wrong: ${error.problem}${error.suggestion === undefined ? '' : `; use --base-url ${error.suggestion}`}`);
  }
  if (error instanceof PageContractError) {
    const [first] = error.violations;
    return failure(
      withRequestId(`the deployment broke the contract in its answer to ${error.request}${first ? ` at ${first.path}: ${first.message}` : ''}; nothing of that answer was written, and the cursor did not move`, error.requestId),
    );
  }
  if (error instanceof ContractError) {
    const [first] = error.violations;
    return failure(`the server's response breaks the contract${first ? ` at ${first.path}: ${first.message}` : ''}`);
  }
  // Every other kind of the SDK's error tree (those for hostile servers among them) is a real failure
  // whose own message says what happened.
  if (error instanceof LoadfeedError) return failure(withRequestId(error.message, error.requestId));
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') return failure(`file error: ${message}`);
  for (const kind of DESTINATION_KINDS) {
    const line = kind.describeError?.(error);
    if (line !== undefined) return failure(line);
  }
  return failure(`unexpected error: ${message}`);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** A URL's password, as in postgres://user:secret@host/db. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi;

/** A key never reaches the terminal, nor a database password, even inside a message that quotes input. */
export function redactKeys(text: string): string {
  return text.replace(KEY_LIKE, `${API_KEY_PREFIX}…`).replace(URL_PASSWORD, '$1…@');
}
