// The SDK's entry for every runtime, browsers and workers included: the client, syncLoads, the errors and
// the memory cursor store, and no Node module. Node, Bun and Deno get index.ts, which adds the file
// cursor store (package.json's export conditions).
export { createClient } from './client.js';
export type { ClientOptions, CallOptions, ClientStats, ListLoadsParams, LoadRow, LoadfeedClient, Page } from './client.js';
export {
  LoadfeedError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ContractError,
  ResponseTooLargeError,
  WaitTooLongError,
  NoProgressError,
  RedirectError,
  BaseUrlError,
  errorFromResponse,
} from './errors.js';
export { PageContractError } from './page-contract.js';
export { DEFAULT_RETRY_POLICY, RETRY_RULES, backoffDelay } from './retry.js';
export type { RetryPolicy, RetryWait, AttemptEvents } from './retry.js';
export type { QuotaSnapshot } from './pacing.js';
export type { WaitEvent } from './transport.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export { syncLoads } from './sync.js';
export type { SyncOptions, SyncProgress, SyncSummary, SyncStrategy, SyncFilters, PageSizeRefusal } from './sync.js';
export type { Destination, CopyReader, CopyDestination } from './destination.js';
export type { RemovalCopy, PickupRange, PickupSpan, Suspect } from './removals/copy.js';
export { verifyCopy } from './verify.js';
export type { VerifyOptions, VerifyReport, Difference } from './verify.js';
export { memoryCursorStore } from './memory-cursor-store.js';
export type { CursorStore } from './memory-cursor-store.js';
