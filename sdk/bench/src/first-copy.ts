// The requests of a first copy when the sync sets no page size: it asks for the contract's maximum and
// follows what the deployment echoes. The baseline is the fewest a key walk can take, ceil(N / (maximum
// - 1)) + 1 (each page re-reads one anchor row; the last request says nothing follows). Printed beside it:
// the same copy from a deployment that does not say how far its feed is settled (the key walk alone,
// which re-reads each page's tie), and the old default (100 a page whatever the deployment serves).
import { syncLoads } from '@loadfeed/sdk';
import { fixture } from './fixtures.js';

export interface FirstCopyResult {
  rows: number;
  perWrite: number;
  maxPageSize: number;
  requests: number;
  bound: number;
  ratio: number;
  /** Requests of the same copy asking for SPEC's default page size of 100. */
  atDefaultSize: number;
  /** Requests of the same copy from a deployment without X-Feed-Settled-Through: the key walk alone. */
  keyWalkOnly: number;
  exact: boolean;
}

async function copyOnce(rows: number, perWrite: number, maxPageSize: number, pageSize: number | undefined, settled = true) {
  const { mock, client } = await fixture(rows, perWrite, 1_000_000, maxPageSize, settled);
  const copy = new Map<string, string>();
  const summary = await syncLoads({
    client: client(),
    ...(pageSize === undefined ? {} : { pageSize }),
    upsert: (batch) => {
      for (const row of batch) copy.set(row.loadNumber, row.updatedAt);
    },
  });
  const served = mock.loads();
  return { requests: summary.requests, exact: served.length === copy.size && served.every((load) => copy.get(load.loadNumber) === load.updatedAt) };
}

export async function firstCopy(rows: number, perWrite: number, maxPageSize: number): Promise<FirstCopyResult> {
  const largest = await copyOnce(rows, perWrite, maxPageSize, undefined);
  const atDefault = await copyOnce(rows, perWrite, maxPageSize, 100);
  const keyWalk = await copyOnce(rows, perWrite, maxPageSize, undefined, false);
  const bound = Math.ceil(rows / (maxPageSize - 1)) + 1;
  return {
    rows,
    perWrite,
    maxPageSize,
    requests: largest.requests,
    bound,
    ratio: largest.requests / bound,
    atDefaultSize: atDefault.requests,
    keyWalkOnly: keyWalk.requests,
    exact: largest.exact && atDefault.exact && keyWalk.exact,
  };
}
