// `loadfeed-server seed`: synthetic customers and loads for demos, tests and benchmarks.
import { writeLine } from '@loadfeed/spec/cli';
import { seedDatabase } from '../seed/seed.js';
import { COMMON_HELP, parseCommandLine, positiveInteger, UsageError, type Command } from './command.js';
import { databaseUrlOf, withPool } from './database.js';

export const DEFAULT_SEED = 'loadfeed';
const PROGRESS_EVERY = 100_000;

/** The start of today (UTC), or of the day given as YYYY-MM-DD. */
export function asOfDay(text: string | undefined, now: Date = new Date()): Date {
  if (text === undefined) return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : undefined;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) {
    throw new UsageError(`--as-of must be a date, YYYY-MM-DD (got ${JSON.stringify(text)})`, 'seed');
  }
  return day;
}

export const seedCommand: Command = {
  name: 'seed',
  help: `Usage: loadfeed-server seed --customers <n> --loads <m> [--seed <s>] [--as-of <YYYY-MM-DD>] [--json] [options]

Adds <n> synthetic customers (or reuses them) and upserts <m> loads in all, shared evenly between them:
lanes between real US cities with their states and ZIPs, named warehouses only at known ones, miles
from the distance by road, costs from the miles, and statuses that agree with the dates (delivered
loads have actual pickup and delivery in the past, planned ones pick up in the future). Pickups spread
over the last 12 months and the next month, with a few older than the feed's window.

The same seed and day always give the same data, and seeding again changes nothing (the loads go
through the importer, so unchanged rows keep their updatedAt). A million loads take a few minutes.

Options:
  --customers <n>        How many customers
  --loads <m>            How many loads in all
  --seed <s>             Any text (default: ${DEFAULT_SEED})
  --as-of <YYYY-MM-DD>   The day the data is laid out around (default: today, UTC)
  --json                 Print the result as one line of JSON
${COMMON_HELP}`,
  async run(args, { stdout, stderr, env }) {
    const { values } = parseCommandLine(
      'seed',
      args,
      { customers: { type: 'string' }, loads: { type: 'string' }, seed: { type: 'string' }, 'as-of': { type: 'string' }, json: { type: 'boolean' } },
      { names: [], required: 0 },
    );
    if (values.help) return writeLine(stdout, this.help);
    const customers = positiveInteger(values.customers, '--customers', 'seed');
    const loads = positiveInteger(values.loads, '--loads', 'seed');
    if (customers === undefined || loads === undefined) throw new UsageError('--customers and --loads are required', 'seed');
    const seed = values.seed ?? DEFAULT_SEED;
    const asOf = asOfDay(values['as-of']);
    const started = performance.now();
    const showProgress = 'isTTY' in stderr && stderr.isTTY === true && !values.json;
    let reported = 0;
    const result = await withPool(databaseUrlOf(values['database-url'], env), (pool) =>
      seedDatabase(pool, {
        seed,
        customers,
        loads,
        asOf,
        onProgress: (written) => {
          if (!showProgress || written - reported < PROGRESS_EVERY) return;
          reported = written;
          writeLine(stderr, `  ${written} of ${loads} loads written`);
        },
      }),
    );
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    if (values.json) {
      return writeLine(stdout, JSON.stringify({ seed, asOf: asOf.toISOString().slice(0, 10), ...result, seconds }));
    }
    for (const customer of result.customers) {
      writeLine(stdout, `${customer.added ? 'added' : 'reused'} customer ${customer.code} (${customer.name}): ${customer.loads} loads`);
    }
    writeLine(stdout, `seeded ${loads} loads in ${seconds} s: ${result.inserted} inserted, ${result.changed} changed, ${result.unchanged} unchanged`);
  },
};
