import fc from 'fast-check';
import { LOAD_STATUSES, type Load } from '../src/index.js';

/** A SPEC-conformant load with every field filled; tests override what they are about. */
export function aLoad(overrides: Partial<Load> & Record<string, unknown> = {}): Load {
  return {
    loadNumber: 'L-1001',
    poNumber: 'PO-77',
    billingRefNumber: 'BR-5',
    originCity: 'Dallas',
    originState: 'TX',
    originZip: '75201',
    originWarehouse: 'Dallas DC',
    destinationCity: 'Memphis',
    destinationState: 'TN',
    destinationZip: '38103',
    destinationWarehouse: null,
    status: 'InTransit',
    scheduledPickupDate: '2026-10-01T00:00:00.000Z',
    scheduledPickupTime: '08:30',
    scheduledDeliveryDate: '2026-10-03T00:00:00.000Z',
    scheduledDeliveryTime: '17:00',
    tenderedDate: '2026-09-28T15:04:05.123Z',
    actualPickupDate: '2026-10-01T08:41:00.000Z',
    actualDeliveryDate: null,
    requestedDeliveryDate: '2026-10-03T00:00:00.000Z',
    miles: '452.3',
    totalCost: '1875.00',
    updatedAt: '2026-10-01T08:41:00.517Z',
    ...overrides,
  } as Load;
}

const dateTime = fc
  .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2099-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((date) => date.toISOString());
const text = fc.string({ minLength: 1, maxLength: 12 });
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const state = fc.stringMatching(/^[A-Z]{2}$/);
const time = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(
  ([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`,
);
const decimal = fc.tuple(fc.nat(100_000), fc.nat(99)).map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`);

/** Any SPEC-conformant load. */
export const anyLoad: fc.Arbitrary<Load> = fc.record({
  loadNumber: text,
  poNumber: nullable(text),
  billingRefNumber: nullable(text),
  originCity: nullable(text),
  originState: nullable(state),
  originZip: nullable(text),
  originWarehouse: nullable(text),
  destinationCity: nullable(text),
  destinationState: nullable(state),
  destinationZip: nullable(text),
  destinationWarehouse: nullable(text),
  status: fc.constantFrom(...LOAD_STATUSES),
  scheduledPickupDate: nullable(dateTime),
  scheduledPickupTime: nullable(time),
  scheduledDeliveryDate: nullable(dateTime),
  scheduledDeliveryTime: nullable(time),
  tenderedDate: nullable(dateTime),
  actualPickupDate: nullable(dateTime),
  actualDeliveryDate: nullable(dateTime),
  requestedDeliveryDate: nullable(dateTime),
  miles: nullable(decimal),
  totalCost: nullable(decimal),
  updatedAt: dateTime,
});
