// A load as the API serves it, for tests that write a destination directly.
import type { LoadRow } from '../../src/index.js';

export function row(n: number, updatedAt: string, overrides: Partial<LoadRow> = {}): LoadRow {
  return {
    loadNumber: `L${n}`,
    poNumber: null,
    billingRefNumber: null,
    originCity: 'Dallas',
    originState: 'TX',
    originZip: null,
    originWarehouse: null,
    destinationCity: null,
    destinationState: null,
    destinationZip: null,
    destinationWarehouse: null,
    status: 'Available',
    scheduledPickupDate: '2026-11-29T00:00:00.000Z',
    scheduledPickupTime: null,
    scheduledDeliveryDate: null,
    scheduledDeliveryTime: null,
    tenderedDate: null,
    actualPickupDate: null,
    actualDeliveryDate: null,
    requestedDeliveryDate: null,
    miles: '1234.50',
    totalCost: null,
    updatedAt,
    ...overrides,
  };
}
