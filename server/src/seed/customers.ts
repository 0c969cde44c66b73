// Synthetic shippers: plausible company names and codes derived from them, the same for the same seed.
import { createRandom, seedFromText } from './random.js';

export interface SeedCustomer {
  code: string;
  name: string;
}

const REGIONS = ['Great Lakes', 'Blue Ridge', 'Summit', 'Prairie', 'Coastal', 'Red River', 'Cascade', 'Lone Star', 'Keystone', 'Heartland', 'Sierra', 'Gulf Coast', 'Northwind', 'Granite', 'Evergreen', 'Sunbelt'] as const;
const TRADES = ['Paper', 'Foods', 'Beverages', 'Building Supply', 'Plastics', 'Steel', 'Home Goods', 'Produce', 'Chemicals', 'Auto Parts', 'Packaging', 'Appliances'] as const;
const SUFFIXES = ['Co.', 'Inc.', 'LLC', 'Corp.'] as const;

/** `count` customers with distinct codes (a repeated name gets a numbered code). */
export function generateCustomers(seed: string, count: number): SeedCustomer[] {
  const random = createRandom(seedFromText(`${seed}\u0000customers`));
  const codes = new Set<string>();
  const customers: SeedCustomer[] = [];
  for (let index = 0; index < count; index++) {
    const region = random.pick(REGIONS);
    const trade = random.pick(TRADES);
    const base = `${region} ${trade}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    let code = base;
    for (let suffix = 2; codes.has(code); suffix++) code = `${base}-${suffix}`;
    codes.add(code);
    customers.push({ code, name: `${region} ${trade} ${random.pick(SUFFIXES)}` });
  }
  return customers;
}
