// What writing a page costs in each file destination: the same pages of 1,000 loads (each page its own
// transaction with its cursor, as a sync writes them) into NDJSON, SQLite and DuckDB in fresh files, in
// alternating rounds; each reported as a ratio against SQLite's, measured in the same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRow } from '@loadfeed/sdk';
import { openDuckdbDestination, openNdjsonDestination, openSqliteDestination, type CopyDestination } from '@loadfeed/sdk/destinations';
import { benchLoad } from './fixtures.js';

export interface DestinationCost {
  /** Milliseconds per 1,000-row page, the fastest round of each. */
  msPerPage: Record<'ndjson' | 'sqlite' | 'duckdb', number>;
  pages: number;
}

const PAGE = 1000;

function pagesOf(count: number): { rows: LoadRow[]; cursor: string }[] {
  return Array.from({ length: count }, (_, page) => {
    const updatedAt = new Date(Date.UTC(2026, 0, 1) + page * 1000).toISOString();
    const rows = Array.from({ length: PAGE }, (_, index) => {
      const n = page * PAGE + index;
      const load = benchLoad(n, '2026-06-01T00:00:00.000Z');
      const row: Record<string, string | null> = {};
      for (const field of ['loadNumber', 'poNumber', 'billingRefNumber', 'originCity', 'originState', 'originZip', 'originWarehouse', 'destinationCity', 'destinationState', 'destinationZip', 'destinationWarehouse', 'status', 'scheduledPickupDate', 'scheduledPickupTime', 'scheduledDeliveryDate', 'scheduledDeliveryTime', 'tenderedDate', 'actualPickupDate', 'actualDeliveryDate', 'requestedDeliveryDate', 'miles', 'totalCost']) {
        row[field] = (load as unknown as Record<string, string | undefined>)[field] ?? null;
      }
      return { ...row, updatedAt } as unknown as LoadRow;
    });
    return { rows, cursor: updatedAt };
  });
}

export async function destinationCost(pageCount: number, rounds: number): Promise<DestinationCost> {
  const pages = pagesOf(pageCount);
  const folder = await mkdtemp(join(tmpdir(), 'loadfeed-bench-'));
  const open: Record<keyof DestinationCost['msPerPage'], (path: string) => Promise<CopyDestination>> = {
    ndjson: (path) => openNdjsonDestination(path, `${path}.state.json`),
    sqlite: (path) => openSqliteDestination(path),
    duckdb: (path) => openDuckdbDestination(path),
  };
  const best = { ndjson: Infinity, sqlite: Infinity, duckdb: Infinity };
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const name of Object.keys(open) as (keyof typeof open)[]) {
        const destination = await open[name](join(folder, `${name}-${round}`));
        const started = performance.now();
        for (const page of pages) await destination.write(page.rows, page.cursor);
        const elapsed = performance.now() - started;
        await destination.close();
        best[name] = Math.min(best[name], elapsed / pages.length);
      }
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  return { msPerPage: best, pages: pageCount };
}
