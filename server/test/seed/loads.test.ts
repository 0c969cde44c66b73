import { LOAD_FIELDS, LOAD_STATUSES } from '@loadfeed/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PICKUP_BANDS, RATE_CENTS_PER_MILE, MINIMUM_CHARGE_CENTS, ROAD_FACTOR, STATUS_ACTUALS, generateLoads, type SeedLoad } from '../../src/seed/loads.js';
import { CITIES, WAREHOUSES, haversineMiles } from '../../src/seed/places.js';

const DAY = 86_400_000;
const DECIMAL = /^[0-9]+\.[0-9]+$/;
const CLOCK = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const MIDNIGHT = /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/;

const asOfs = fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true });
const seeds = fc.string({ minLength: 1, maxLength: 12 });
const customerCodes = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);

function loadsOf(seed: string, customerCode: string, asOf: Date, count = 300): SeedLoad[] {
  return [...generateLoads({ seed, customerCode, count, asOf })];
}

/** Checks every load generated for random seeds, customers and as-of moments. */
function forEveryGeneratedLoad(check: (load: SeedLoad, now: number) => void, numRuns = 25): void {
  fc.assert(
    fc.property(seeds, customerCodes, asOfs, (seed, customerCode, asOf) => {
      for (const load of loadsOf(seed, customerCode, asOf)) check(load, asOf.getTime());
    }),
    { numRuns },
  );
}

function time(value: string | null): number {
  if (value === null) throw new Error('expected a date-time, got null');
  return Date.parse(value);
}

describe('the seed load generator', () => {
  it('yields the same loads for the same seed, customer and as-of moment', () => {
    fc.assert(
      fc.property(seeds, customerCodes, asOfs, (seed, customerCode, asOf) => {
        expect(loadsOf(seed, customerCode, asOf, 50)).toEqual(loadsOf(seed, customerCode, asOf, 50));
      }),
      { numRuns: 30 },
    );
  });

  it('yields different loads for a different seed or another customer', () => {
    const asOf = new Date('2026-06-01T00:00:00Z');
    const base = loadsOf('one', 'acme', asOf, 50);
    expect(loadsOf('two', 'acme', asOf, 50)).not.toEqual(base);
    expect(loadsOf('one', 'globex', asOf, 50)).not.toEqual(base);
  });

  it('gives every load every API field but updatedAt, with unique load numbers', () => {
    const loads = loadsOf('fields', 'acme', new Date('2026-06-01T00:00:00Z'), 2_000);
    for (const load of loads) expect(Object.keys(load).sort()).toEqual(LOAD_FIELDS.filter((field) => field !== 'updatedAt').sort());
    expect(new Set(loads.map((load) => load.loadNumber)).size).toBe(loads.length);
  });

  it('places stops in real cities with their own state and ZIP, naming a warehouse only at a known one', () => {
    forEveryGeneratedLoad((load) => {
      for (const [city, state, zip, warehouse] of [
        [load.originCity, load.originState, load.originZip, load.originWarehouse],
        [load.destinationCity, load.destinationState, load.destinationZip, load.destinationWarehouse],
      ] as const) {
        const known = CITIES.find((candidate) => candidate.name === city && candidate.state === state);
        expect(known, `${city}, ${state}`).toBeDefined();
        if (warehouse === null) {
          expect(zip).toBe(known!.zip);
        } else {
          const site = WAREHOUSES.find((candidate) => candidate.name === warehouse);
          expect(site && CITIES[site.city]).toBe(known);
          expect(zip).toBe(site!.zip);
        }
      }
      expect(`${load.originCity}, ${load.originState}`).not.toBe(`${load.destinationCity}, ${load.destinationState}`);
    });
  });

  it('has miles of a road between the two cities and a cost of those miles at a linehaul rate', () => {
    forEveryGeneratedLoad((load) => {
      expect(load.miles).toMatch(DECIMAL);
      expect(load.totalCost).toMatch(/^[0-9]+\.[0-9]{2}$/);
      const origin = CITIES.find((city) => city.name === load.originCity && city.state === load.originState)!;
      const destination = CITIES.find((city) => city.name === load.destinationCity && city.state === load.destinationState)!;
      const miles = Number(load.miles);
      const crow = haversineMiles(origin, destination);
      expect(miles).toBeGreaterThanOrEqual(Math.max(1, crow * ROAD_FACTOR.min) - 0.05);
      expect(miles).toBeLessThanOrEqual(Math.max(1, crow * ROAD_FACTOR.max) + 0.05);
      const cents = Math.round(Number(load.totalCost) * 100);
      if (cents > MINIMUM_CHARGE_CENTS) {
        expect(cents / miles).toBeGreaterThanOrEqual(RATE_CENTS_PER_MILE.min - 0.01);
        expect(cents / miles).toBeLessThanOrEqual(RATE_CENTS_PER_MILE.max + 0.01);
      } else {
        expect(cents).toBe(MINIMUM_CHARGE_CENTS);
      }
    });
  });

  it('keeps statuses consistent with the dates: actual check-ins only for loads that reached them, and only in the past', () => {
    forEveryGeneratedLoad((load, now) => {
      const actuals = STATUS_ACTUALS[load.status];
      expect(LOAD_STATUSES).toContain(load.status);
      expect(load.actualPickupDate !== null).toBe(actuals.pickedUp);
      expect(load.actualDeliveryDate !== null).toBe(actuals.delivered);
      if (actuals.pickedUp) expect(time(load.actualPickupDate)).toBeLessThanOrEqual(now);
      if (actuals.delivered) {
        expect(time(load.actualDeliveryDate)).toBeLessThanOrEqual(now);
        expect(time(load.actualDeliveryDate)).toBeGreaterThan(time(load.actualPickupDate));
      }
      const pickupAt = time(load.scheduledPickupDate) + minutes(load.scheduledPickupTime);
      if (['PrePlanning', 'Available', 'Covered', 'Dispatched', 'OnHold'].includes(load.status)) expect(pickupAt).toBeGreaterThanOrEqual(now);
      if (['Delivered', 'Completed', 'Claims', 'PenApp', 'Unloading'].includes(load.status)) {
        expect(time(load.scheduledDeliveryDate) + minutes(load.scheduledDeliveryTime)).toBeLessThan(now);
      }
      expect(time(load.tenderedDate)).toBeLessThanOrEqual(Math.min(now, pickupAt));
    }, 40);
  });

  it('schedules appointments as whole days with HH:MM times, delivery after pickup', () => {
    forEveryGeneratedLoad((load) => {
      expect(load.scheduledPickupDate).toMatch(MIDNIGHT);
      expect(load.scheduledDeliveryDate).toMatch(MIDNIGHT);
      expect(load.scheduledPickupTime).toMatch(CLOCK);
      expect(load.scheduledDeliveryTime).toMatch(CLOCK);
      if (load.requestedDeliveryDate !== null) expect(load.requestedDeliveryDate).toMatch(MIDNIGHT);
      expect(time(load.scheduledDeliveryDate) + minutes(load.scheduledDeliveryTime)).toBeGreaterThan(time(load.scheduledPickupDate) + minutes(load.scheduledPickupTime));
    });
  });

  it('spreads pickups over the last 12 months and the coming month, with a few aged out of the window', () => {
    const asOf = new Date('2026-11-22T00:00:00Z');
    const days = loadsOf('spread', 'acme', asOf, 10_000).map((load) => Math.round((time(load.scheduledPickupDate) - asOf.getTime()) / DAY));
    const agedOut = days.filter((day) => day < -366).length;
    const future = days.filter((day) => day >= 0).length;
    const inWindow = days.length - agedOut - future;
    expect(Math.min(...days)).toBeGreaterThanOrEqual(PICKUP_BANDS[0].fromDay);
    expect(Math.max(...days)).toBeLessThanOrEqual(PICKUP_BANDS[2].toDay);
    expect(days.filter((day) => day >= -366 && day < -360)).toEqual([]);
    expect(agedOut / days.length).toBeCloseTo(PICKUP_BANDS[0].share, 1);
    expect(future / days.length).toBeCloseTo(PICKUP_BANDS[2].share, 1);
    expect(inWindow / days.length).toBeCloseTo(PICKUP_BANDS[1].share, 1);
    const pastMonthsWithLoads = new Set(days.filter((day) => day < 0 && day >= -360).map((day) => Math.floor((-day - 1) / 30)));
    expect(pastMonthsWithLoads.size).toBe(12);
  });
});

function minutes(clock: string | null): number {
  if (clock === null) throw new Error('expected a time, got null');
  const [hours, mins] = clock.split(':').map(Number);
  return (hours! * 60 + mins!) * 60_000;
}
