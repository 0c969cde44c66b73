// Writes synthetic customers and loads into a database through the importer, the same path as
// `loadfeed-server import`: the loads are checked like any import and keep the updatedAt rule, so a
// second run with the same seed and day leaves every row (and its updatedAt) as it was. The loads of a
// customer that has no key yet are then given their history's stamps (history.ts).
import type pg from 'pg';
import { addCustomer, customerIdOf, listCustomers } from '../customers.js';
import { importLoads, type ImportSummary, type NumberedRow } from '../loads/import.js';
import { generateCustomers, type SeedCustomer } from './customers.js';
import { backdateLoads, historyStampOf } from './history.js';
import { generateLoads, type SeedLoad } from './loads.js';

/** Rows per importLoads call: a few importer transactions, small enough to keep memory flat. */
const CHUNK_ROWS = 5_000;
/** Chunks in flight: one is checked in this process while the database writes the other. */
const CHUNKS_IN_FLIGHT = 2;

export interface SeedOptions {
  seed: string;
  customers: number;
  /** Loads in all, shared evenly between the customers. */
  loads: number;
  asOf: Date;
  /** Told the number of loads written so far, after each chunk. */
  onProgress?: (written: number) => void;
}

export interface SeededCustomer extends SeedCustomer {
  /** Whether this run added the customer (false: it existed, and its loads were upserted). */
  added: boolean;
  loads: number;
}

export interface SeedResult extends ImportSummary {
  customers: SeededCustomer[];
}

export async function seedDatabase(pool: pg.Pool, { seed, customers: customerCount, loads, asOf, onProgress }: SeedOptions): Promise<SeedResult> {
  const existing = new Set((await listCustomers(pool)).map((customer) => customer.code));
  const customers: SeededCustomer[] = [];
  for (const [index, customer] of generateCustomers(seed, customerCount).entries()) {
    const added = !existing.has(customer.code);
    if (added) await addCustomer(pool, customer.code, customer.name);
    customers.push({ ...customer, added, loads: Math.floor(loads / customerCount) + (index < loads % customerCount ? 1 : 0) });
  }
  const total: ImportSummary = { inserted: 0, changed: 0, unchanged: 0 };
  let written = 0;
  for (const customer of customers) {
    await seedCustomerLoads(pool, customer.code, { seed, count: customer.loads, asOf }, (summary) => {
      total.inserted += summary.inserted;
      total.changed += summary.changed;
      total.unchanged += summary.unchanged;
      written += summary.inserted + summary.changed + summary.unchanged;
      onProgress?.(written);
    });
  }
  return { customers, ...total };
}

/** Upserts `count` synthetic loads for one existing customer; `onChunk` hears each chunk's summary. */
export async function seedCustomerLoads(
  pool: pg.Pool,
  customerCode: string,
  { seed, count, asOf }: { seed: string; count: number; asOf: Date },
  onChunk: (summary: ImportSummary) => void = () => {},
): Promise<void> {
  const customerId = await customerIdOf(pool, customerCode);
  const inFlight = new Set<Promise<void>>();
  const failures: unknown[] = [];
  const send = (rows: NumberedRow[]): void => {
    const history = new Map(rows.map(({ value }) => [(value as SeedLoad).loadNumber, historyStampOf(value as SeedLoad, asOf)]));
    const write: Promise<void> = importLoads(pool, customerCode, rows)
      .then(async (summary) => {
        await backdateLoads(pool, customerId, history);
        onChunk(summary);
      })
      .catch((error: unknown) => void failures.push(error))
      .finally(() => inFlight.delete(write));
    inFlight.add(write);
  };
  let chunk: NumberedRow[] = [];
  for (const load of generateLoads({ seed, customerCode, count, asOf })) {
    chunk.push({ line: chunk.length + 1, value: load });
    if (chunk.length < CHUNK_ROWS) continue;
    send(chunk);
    chunk = [];
    if (inFlight.size >= CHUNKS_IN_FLIGHT) await Promise.race(inFlight);
    if (failures.length > 0) break;
  }
  if (chunk.length > 0 && failures.length === 0) send(chunk);
  await Promise.all(inFlight);
  if (failures.length > 0) throw failures[0];
}
