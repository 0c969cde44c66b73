// What the removal suites (removals.test.ts, suspects.test.ts) copy: 120 loads picked up three days apart
// across the window, and a fresh copy of a destination for each test.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CopyDestination } from '../../src/destinations.js';
import type { DestinationCase } from '../cli/copies.js';
import { loadInput } from '../helpers.js';

export const DAY_MS = 86_400_000;
export const START = Date.UTC(2026, 0, 1);
/** Load n's pickup: inside the window, n × 3 days after its first day. */
export const pickup = (n: number) => new Date(START - 300 * DAY_MS + n * 3 * DAY_MS + n * 1000).toISOString();
export const LOADS = Array.from({ length: 120 }, (_, index) => loadInput(index + 1, { scheduledPickupDate: pickup(index + 1) }));

export type Open = (write: boolean) => Promise<CopyDestination>;

/** A fresh copy of the destination, in the test's scratch folder: a base path no other test names. */
export function freshCopy(scratchPath: string, destination: DestinationCase): Open {
  const file = join(scratchPath, randomBytes(4).toString('hex'));
  return (write) => destination.open(file, write);
}
