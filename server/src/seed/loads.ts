// Synthetic loads that read like a broker's real data: lanes between real cities, schedules that follow
// from the miles, statuses that agree with the dates, and costs that follow from the miles.
import type { Load, LoadStatus } from '@loadfeed/spec';
import { CITIES, WAREHOUSES_BY_CITY, haversineMiles, type City, type Warehouse } from './places.js';
import { createRandom, seedFromText, type Random } from './random.js';

/** A generated load: every field but updatedAt, which the database sets. */
export type SeedLoad = Omit<Load, 'updatedAt'>;

export interface LoadGeneratorOptions {
  /** Any text; the same seed, customer and day give the same loads. */
  seed: string;
  /** Each customer has its own stream (and its own lanes and rates). */
  customerCode: string;
  count: number;
  /** The moment the data describes as now; dates are laid out around its UTC day. */
  asOf: Date;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * Where scheduled pickups fall, in days from the as-of day: most inside the 12-month window, a few in the
 * coming month, and a few that have aged out so that the window is visible. The bands keep clear of the
 * window's edge, so a load is inside or outside whatever the exact length of the last 12 months.
 */
export const PICKUP_BANDS = [
  { share: 0.03, fromDay: -540, toDay: -370 },
  { share: 0.9, fromDay: -360, toDay: -1 },
  { share: 0.07, fromDay: 0, toDay: 30 },
] as const;

/** Statuses by where the load stands against now. */
const STATUS_WEIGHTS = {
  planned: { PrePlanning: 15, Available: 25, Covered: 30, Dispatched: 15, OnHold: 7, Cancelled: 8 },
  underway: { Loading: 10, InTransit: 85, Cancelled: 5 },
  recentlyDelivered: { Unloading: 10, Delivered: 55, Completed: 20, PenApp: 5, Claims: 2, Cancelled: 8 },
  delivered: { Delivered: 8, Completed: 76, PenApp: 5, Claims: 4, Cancelled: 7 },
} as const satisfies Record<string, Partial<Record<LoadStatus, number>>>;
type StatusWeights = Readonly<Partial<Record<LoadStatus, number>>>;

/** Which actual dates a status implies: the driver has checked in at origin, and at destination. */
export const STATUS_ACTUALS: Readonly<Record<LoadStatus, { pickedUp: boolean; delivered: boolean }>> = {
  PrePlanning: { pickedUp: false, delivered: false },
  Available: { pickedUp: false, delivered: false },
  Covered: { pickedUp: false, delivered: false },
  Dispatched: { pickedUp: false, delivered: false },
  OnHold: { pickedUp: false, delivered: false },
  Cancelled: { pickedUp: false, delivered: false },
  Loading: { pickedUp: true, delivered: false },
  InTransit: { pickedUp: true, delivered: false },
  Unloading: { pickedUp: true, delivered: true },
  Delivered: { pickedUp: true, delivered: true },
  Claims: { pickedUp: true, delivered: true },
  PenApp: { pickedUp: true, delivered: true },
  Completed: { pickedUp: true, delivered: true },
};

/** Road miles over great-circle miles. */
export const ROAD_FACTOR = { min: 1.12, max: 1.3 } as const;
/** Linehaul rates in cents per mile, and the smallest invoice, in cents. */
export const RATE_CENTS_PER_MILE = { min: 180, max: 360 } as const;
export const MINIMUM_CHARGE_CENTS = 45_000;

const AVERAGE_MPH = 50;
const DRIVING_HOURS_PER_DAY = 11;
const RECENT_DELIVERY = 3 * DAY;
const APPOINTMENT_HOURS = { pickup: { first: 5, last: 18 }, delivery: { first: 6, last: 20 } } as const;

interface CustomerProfile {
  /** The customer's own plants and DCs: most of its loads leave from one of these. */
  homeCities: readonly number[];
  baseRateCents: number;
  firstLoadNumber: number;
}

function customerProfile(random: Random): CustomerProfile {
  const withWarehouses = CITIES.map((_, index) => index).filter((index) => WAREHOUSES_BY_CITY[index]!.length > 0);
  const homeCities = [random.pick(withWarehouses), random.pick(withWarehouses), random.int(0, CITIES.length - 1)];
  return { homeCities, baseRateCents: random.int(210, 290), firstLoadNumber: random.int(1_000, 7_999) * 1_000 };
}

/** The loads of one customer, lazily: a million of them never sit in memory at once. */
export function* generateLoads({ seed, customerCode, count, asOf }: LoadGeneratorOptions): Generator<SeedLoad> {
  const random = createRandom(seedFromText(`${seed}\u0000${customerCode}`));
  const profile = customerProfile(random);
  const now = asOf.getTime();
  const today = Math.floor(now / DAY) * DAY;
  for (let index = 0; index < count; index++) {
    yield generateLoad(random, profile, String(profile.firstLoadNumber + index), pickupDay(random, (index + random.next()) / count), today, now);
  }
}

/** Pickup days rise with the load number, as they do when numbers are handed out at tender. */
function pickupDay(random: Random, position: number): number {
  let start = 0;
  for (const band of PICKUP_BANDS) {
    if (position < start + band.share || band === PICKUP_BANDS[PICKUP_BANDS.length - 1]) {
      const within = Math.min(1, Math.max(0, (position - start) / band.share));
      const day = Math.round(band.fromDay + within * (band.toDay - band.fromDay)) + random.int(-2, 2);
      return Math.min(band.toDay, Math.max(band.fromDay, day));
    }
    start += band.share;
  }
  throw new Error('unreachable: the last band always matches');
}

function generateLoad(random: Random, profile: CustomerProfile, loadNumber: string, pickupDayOffset: number, today: number, now: number): SeedLoad {
  const originIndex = random.chance(0.6) ? random.pick(profile.homeCities) : random.int(0, CITIES.length - 1);
  const destinationIndex = nearbyDestination(random, originIndex);
  const origin = stop(random, originIndex);
  const destination = stop(random, destinationIndex);
  const miles = haversineMiles(CITIES[originIndex]!, CITIES[destinationIndex]!) * (ROAD_FACTOR.min + random.next() * (ROAD_FACTOR.max - ROAD_FACTOR.min));
  const tenthsOfMiles = Math.max(10, Math.round(miles * 10));

  const pickupAt = today + pickupDayOffset * DAY + appointmentMinute(random, APPOINTMENT_HOURS.pickup) * MINUTE;
  const driveMinutes = (tenthsOfMiles / 10 / AVERAGE_MPH) * 60;
  const restMinutes = Math.floor(driveMinutes / 60 / DRIVING_HOURS_PER_DAY) * 10 * 60;
  const deliveryAt = nextAppointment(pickupAt + (driveMinutes + restMinutes + random.int(60, 180)) * MINUTE, APPOINTMENT_HOURS.delivery);

  const status = random.weighted<LoadStatus>(
    (pickupAt >= now ? STATUS_WEIGHTS.planned : deliveryAt >= now ? STATUS_WEIGHTS.underway : now - deliveryAt < RECENT_DELIVERY ? STATUS_WEIGHTS.recentlyDelivered : STATUS_WEIGHTS.delivered) as StatusWeights,
  );
  const actuals = STATUS_ACTUALS[status];
  // Actual check-ins lie in the past, the delivery at least a drive after the pickup.
  const actualDeliveryAt = actuals.delivered ? Math.min(now - random.int(1, 30) * MINUTE, deliveryAt + random.int(-90, 240) * MINUTE) : null;
  const latestPickup = actualDeliveryAt === null ? now - random.int(1, 30) * MINUTE : actualDeliveryAt - Math.round(driveMinutes * 0.9 + 30) * MINUTE;
  const actualPickupAt = actuals.pickedUp ? Math.min(latestPickup, pickupAt + random.int(-60, 240) * MINUTE) : null;
  const tenderedAt = Math.min(now - random.int(5, 600) * MINUTE, startOfDay(pickupAt) - random.int(1, 10) * DAY + random.int(7 * 60, 17 * 60) * MINUTE);
  const rateCents = profile.baseRateCents + random.int(-30, 70);
  const costCents = Math.max(MINIMUM_CHARGE_CENTS, Math.round((tenthsOfMiles / 10) * rateCents));

  return {
    loadNumber,
    poNumber: random.chance(0.9) ? `4500${random.int(100_000, 999_999)}` : null,
    billingRefNumber: random.chance(0.75) ? `BR-${new Date(pickupAt).getUTCFullYear()}-${random.int(10_000, 99_999)}` : null,
    originCity: CITIES[originIndex]!.name,
    originState: CITIES[originIndex]!.state,
    originZip: origin.zip,
    originWarehouse: origin.warehouse,
    destinationCity: CITIES[destinationIndex]!.name,
    destinationState: CITIES[destinationIndex]!.state,
    destinationZip: destination.zip,
    destinationWarehouse: destination.warehouse,
    status,
    scheduledPickupDate: isoDay(pickupAt),
    scheduledPickupTime: clockTime(pickupAt),
    scheduledDeliveryDate: isoDay(deliveryAt),
    scheduledDeliveryTime: clockTime(deliveryAt),
    tenderedDate: new Date(tenderedAt).toISOString(),
    actualPickupDate: actualPickupAt === null ? null : new Date(actualPickupAt).toISOString(),
    actualDeliveryDate: actualDeliveryAt === null ? null : new Date(actualDeliveryAt).toISOString(),
    requestedDeliveryDate: random.chance(0.9) ? isoDay(deliveryAt + random.int(0, 1) * DAY) : null,
    miles: `${Math.floor(tenthsOfMiles / 10)}.${tenthsOfMiles % 10}`,
    totalCost: `${Math.floor(costCents / 100)}.${String(costCents % 100).padStart(2, '0')}`,
  };
}

/** Most truckload lanes are short: the nearest of three random other cities. */
function nearbyDestination(random: Random, originIndex: number): number {
  const origin = CITIES[originIndex]!;
  let best = -1;
  let bestMiles = Infinity;
  for (let draw = 0; draw < 3; draw++) {
    let candidate = random.int(0, CITIES.length - 2);
    if (candidate >= originIndex) candidate += 1;
    const miles = haversineMiles(origin, CITIES[candidate]!);
    if (miles < bestMiles) [best, bestMiles] = [candidate, miles];
  }
  return best;
}

/** A stop in a city: at one of its known warehouses, named, or at some other address with the city's ZIP. */
function stop(random: Random, cityIndex: number): { zip: string; warehouse: string | null } {
  const warehouses: readonly Warehouse[] = WAREHOUSES_BY_CITY[cityIndex]!;
  if (warehouses.length > 0 && random.chance(0.5)) {
    const warehouse = random.pick(warehouses);
    return { zip: warehouse.zip, warehouse: warehouse.name };
  }
  return { zip: (CITIES[cityIndex] as City).zip, warehouse: null };
}

/** Minutes after midnight on the half hour, inside the dock's hours. */
function appointmentMinute(random: Random, hours: { first: number; last: number }): number {
  return random.int(hours.first * 2, hours.last * 2) * 30;
}

/** The first half-hour slot at or after `at` that falls inside the dock's hours. */
function nextAppointment(at: number, hours: { first: number; last: number }): number {
  const slot = Math.ceil(at / (30 * MINUTE)) * 30 * MINUTE;
  const minute = (slot - startOfDay(slot)) / MINUTE;
  if (minute < hours.first * 60) return startOfDay(slot) + hours.first * 60 * MINUTE;
  if (minute > hours.last * 60) return startOfDay(slot) + DAY + hours.first * 60 * MINUTE;
  return slot;
}

function startOfDay(at: number): number {
  return Math.floor(at / DAY) * DAY;
}

function isoDay(at: number): string {
  return new Date(startOfDay(at)).toISOString();
}

function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 16);
}
