// The first-start experience of an embedded database: a demo customer with realistic loads and a key,
// and the lines that show a new user how to call the feed at once.
import { DEFAULT_RATE_LIMIT, LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import type pg from 'pg';
import { addCustomer, listCustomers } from '../customers.js';
import { createKey } from '../admission/keys.js';
import { seedCustomerLoads } from '../seed/seed.js';
import { asOfDay } from './seed.js';

export const DEMO_CUSTOMER = { code: 'demo', name: 'Demo Shipper Inc.' } as const;
export const DEMO_LOADS = 300;

/** Whether the database has no customer yet: a fresh one, which gets the demo data. */
export async function isEmpty(pool: pg.Pool): Promise<boolean> {
  return (await listCustomers(pool)).length === 0;
}

/** Adds the demo customer and its loads (the same data for the same day). */
export async function addDemoData(pool: pg.Pool, now: Date): Promise<void> {
  await addCustomer(pool, DEMO_CUSTOMER.code, DEMO_CUSTOMER.name);
  await seedCustomerLoads(pool, DEMO_CUSTOMER.code, { seed: DEMO_CUSTOMER.code, count: DEMO_LOADS, asOf: asOfDay(undefined, now) });
}

/** How many of the demo customer's loads the feed serves on `now`: those inside the 12-month window. */
export async function demoLoadsInWindow(pool: pg.Pool, now: Date): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(
    `SELECT count(*)::int AS count
       FROM loads JOIN customers ON customers.id = loads.customer_id
      WHERE customers.code = $1::text AND loads.scheduled_pickup_date >= $2::timestamptz`,
    [DEMO_CUSTOMER.code, feedWindowStart(now).toISOString()],
  );
  return rows[0]!.count;
}

/** A new key for the demo customer. */
export async function createDemoKey(pool: pg.Pool): Promise<string> {
  return (await createKey(pool, DEMO_CUSTOMER.code)).key;
}

/** The lines that hand a new key over, with a command to paste. */
export function demoKeyLines(key: string, baseUrl: string): string[] {
  return [
    `A demo key for customer "${DEMO_CUSTOMER.code}" (shown this once; ${DEFAULT_RATE_LIMIT} requests a minute by default):`,
    '',
    `  ${key}`,
    '',
    'Try it:',
    '',
    `  curl -H "Authorization: Bearer ${key}" "${baseUrl}${LIST_LOADS_PATH}?pageSize=5"`,
    '',
  ];
}
