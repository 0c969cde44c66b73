// How far the deployment said its feed was settled when it served a page (its X-Feed-Settled-Through),
// kept beside the page rather than in it, so that a page stays the contract's envelope and nothing more.
// A page the client did not read itself (a caller's own client, a copy) has none, and a sync then walks
// as it would on a deployment that never says: by key.
import type { Page } from './client.js';

const settledThrough = new WeakMap<Page, number>();

/** Called by the client for a page whose header it read and checked every row against. */
export function recordSettledThrough(page: Page, epochMs: number): void {
  settledThrough.set(page, epochMs);
}

/** Epoch ms: no row of the page is newer, and no change a later response shows is stamped at or before it. */
export function settledThroughOf(page: Page): number | undefined {
  return settledThrough.get(page);
}
