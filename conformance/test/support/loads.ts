// Realistic loads for two customers: several statuses, shared and missing POs and billing references,
// pickups spread across the 12-month window (a few in the future, one aged out). Their updatedAt history
// is written by test/support/stamps.ts, since the server stamps each row with its own write time.
import { LOAD_STATUSES } from '@loadfeed/spec';
import type { LoadInput, TestServer } from '@loadfeed/server/testing';

const DAY_MS = 86_400_000;
const LANES = [
  ['Dallas', 'TX', '75201', 'Atlanta', 'GA', '30303'],
  ['Chicago', 'IL', '60607', 'Columbus', 'OH', '43215'],
  ['Fresno', 'CA', '93721', 'Phoenix', 'AZ', '85004'],
  ['Memphis', 'TN', '38103', 'Laredo', 'TX', '78040'],
] as const;
const STATUSES = ['Delivered', 'InTransit', 'Covered', 'Completed', 'Cancelled', 'Available'] as const satisfies readonly (typeof LOAD_STATUSES)[number][];

function atDay(offsetDays: number, hour: number): string {
  const day = new Date(Date.now() + offsetDays * DAY_MS);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
}

/** `count` loads of one customer; index i picks up `spacingDays` before index i-1, the first ones in the future. */
export function loadsOf(prefix: string, count: number, spacingDays = 9): LoadInput[] {
  return Array.from({ length: count }, (_, i) => {
    const [originCity, originState, originZip, destinationCity, destinationState, destinationZip] = LANES[i % LANES.length]!;
    const pickupOffset = 20 - Math.round(i * spacingDays);
    return {
      loadNumber: `${prefix}${100_200 + i}`,
      status: STATUSES[i % STATUSES.length]!,
      poNumber: i % 5 === 4 ? null : `${prefix}-PO-${4400 + (i % 7)}`,
      billingRefNumber: i % 6 === 5 ? null : `${prefix}-BR-${880 + (i % 4)}`,
      originCity,
      originState,
      originZip,
      originWarehouse: i % 3 === 0 ? `${originCity} DC` : null,
      destinationCity,
      destinationState,
      destinationZip,
      scheduledPickupDate: atDay(pickupOffset, 0),
      scheduledPickupTime: `${String(6 + (i % 10)).padStart(2, '0')}:30`,
      scheduledDeliveryDate: atDay(pickupOffset + 1 + (i % 4), 0),
      scheduledDeliveryTime: i % 2 === 0 ? '14:00' : null,
      tenderedDate: atDay(pickupOffset - 3, 15),
      actualPickupDate: pickupOffset < 0 ? atDay(pickupOffset, 7) : null,
      actualDeliveryDate: pickupOffset + 2 < 0 ? atDay(pickupOffset + 2, 16) : null,
      requestedDeliveryDate: atDay(pickupOffset + 3, 0),
      miles: `${420 + i * 37}.${i % 10}`,
      totalCost: `${1850 + i * 113}.50`,
    };
  });
}

/** A load that picked up 14 months ago: stored, but outside the feed. */
export function agedOutLoad(prefix: string): LoadInput {
  return { loadNumber: `${prefix}000001`, status: 'Completed', poNumber: `${prefix}-PO-OLD`, scheduledPickupDate: atDay(-425, 0), scheduledDeliveryDate: atDay(-423, 0) };
}

/** Imports in batches of `batch` rows (at most 1000), each batch one import. */
export async function importInBatches(server: TestServer, customer: string, loads: readonly LoadInput[], batch: number): Promise<void> {
  for (let start = 0; start < loads.length; start += batch) {
    await server.importLoads(customer, loads.slice(start, start + batch));
  }
}
