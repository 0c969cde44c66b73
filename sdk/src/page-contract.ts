// What SPEC implies of a page beyond its shape (the client checks the shape, row-check.ts): the rows in
// the feed's order, each load once, and an envelope whose numbers agree with its rows. A deployment that
// breaks one of these loses rows without a sync noticing (a short page while `hasMore` says more follow
// skips the rows it left out; rows in another order move the cursor past rows still to come), so a sync
// refuses such a page before any of it is written, and its cursor stays where it was.
import type { Violation } from '@loadfeed/spec';
import type { Page } from './client.js';
import { ContractError, type ErrorContext } from './errors.js';

/** How a page was asked for, as an error names it. */
export interface PageRequest {
  updatedSince: string | undefined;
  page: number;
}

/** A page broke what SPEC implies of a page: nothing of it is written and the cursor stays. */
export class PageContractError extends ContractError {
  /** The request whose answer broke the contract, as words: `page 2 from updatedSince=…`. */
  readonly request: string;

  constructor(request: string, violations: Violation[], context: ErrorContext = {}) {
    super(violations, context);
    this.request = request;
    this.message = `the deployment broke the contract in its answer to ${request} (nothing of it was written, and the cursor did not move):\n${violations
      .map((v) => `  ${v.path}: ${v.message}`)
      .join('\n')}`;
  }
}

export const describeRequest = ({ updatedSince, page }: PageRequest) => `page ${page} from updatedSince=${updatedSince ?? '(none)'}`;

/**
 * The page's faults against SPEC §2 and §4, at most one of each kind: a page that says more follow is full;
 * the envelope's count agrees with `hasMore` and the page's number; updatedAt never decreases; no
 * loadNumber twice. Costs one pass over the rows and a set of their loadNumbers.
 */
export function pageFaults(page: Page, number: number): Violation[] {
  const faults: Violation[] = [];
  const { data, pageSize, totalCount, hasMore } = page;
  const before = (number - 1) * pageSize;
  if (data.length > pageSize) faults.push({ path: '/data', message: `holds ${data.length} rows, more than the pageSize ${pageSize} it echoes` });
  if (hasMore) {
    if (data.length < pageSize) {
      faults.push({ path: '/data', message: `holds ${data.length} rows while hasMore is true and pageSize is ${pageSize}: a page that says more follow is full, so the rows it leaves out would be skipped` });
    } else if (number * pageSize >= totalCount) {
      faults.push({ path: '/hasMore', message: `is true, but totalCount ${totalCount} ends on or before this page (page ${number} of ${pageSize} a page)` });
    }
  } else if (data.length > 0 ? before + data.length !== totalCount : before < totalCount) {
    faults.push({
      path: '/hasMore',
      message: `is false, but totalCount is ${totalCount} while pages 1 to ${number} (${pageSize} a page) hold ${before + data.length} rows: the rows after them would be skipped`,
    });
  }
  const seen = new Set<string>();
  let orderFault = false;
  let twiceFault = false;
  for (let index = 0; index < data.length; index += 1) {
    const row = data[index]!;
    if (!orderFault && index > 0 && row.updatedAt < data[index - 1]!.updatedAt) {
      orderFault = true;
      faults.push({ path: `/data/${index}/updatedAt`, message: `${row.updatedAt} is before the row above it (${data[index - 1]!.updatedAt}): the feed is in updatedAt order (SPEC §4)` });
    }
    const distinct = seen.size;
    seen.add(row.loadNumber);
    if (!twiceFault && seen.size === distinct) {
      twiceFault = true;
      faults.push({ path: `/data/${index}/loadNumber`, message: `${row.loadNumber} is on this page twice: a load is one row, and a copy could keep either version` });
    }
  }
  return faults;
}

/**
 * The fault of page `number` read right after page `number - 1` from one anchor, whose first row sorts
 * before the last row of the page before it; else undefined. Only for a settled feed read upwards: there a
 * row that appears sorts after every row served, and a row that leaves shifts later rows down, so the next
 * page never starts earlier than the last one ended, whatever is written meanwhile. (Elsewhere a late
 * commit may shift rows into a page already read, SPEC §4's skew; read downwards, shifted rows come from above.)
 */
export function orderFaultAcrossPages(previous: Page, previousNumber: number, page: Page, number: number): Violation | undefined {
  if (number !== previousNumber + 1) return undefined;
  const lowerLast = previous.data[previous.data.length - 1];
  const higherFirst = page.data[0];
  if (lowerLast === undefined || higherFirst === undefined || higherFirst.updatedAt >= lowerLast.updatedAt) return undefined;
  return {
    path: '/data/0/updatedAt',
    message: `${higherFirst.updatedAt} is before the last row of page ${previousNumber} (${lowerLast.updatedAt}): a settled feed keeps updatedAt order across pages (SPEC §4)`,
  };
}

/**
 * Asks for a page and holds it to `pageFaults`. A page with a fault is asked for once more before it is
 * judged: a deployment that counts in a statement of its own may disagree with itself while it is written
 * to, and its next answer may well agree. A second answer with a fault is a PageContractError.
 */
export async function checkedPage(ask: () => Promise<Page>, request: PageRequest): Promise<Page> {
  const page = await ask();
  if (pageFaults(page, request.page).length === 0) return page;
  const again = await ask();
  const faults = pageFaults(again, request.page);
  if (faults.length === 0) return again;
  throw new PageContractError(`${describeRequest(request)} (asked twice)`, faults);
}

/**
 * A deployment that says its feed is settled, whose count from an anchor grew while its last row stayed
 * the same: a row appeared before that row, stamped at or before what an earlier response said was
 * settled. Pages read by number since may have skipped it, and a walk by key from where they stopped
 * never reads it, so the run stops instead of ending with a copy that lacks it.
 */
export function settledFeedContradicted(updatedSince: string, counted: number, countedNow: number): PageContractError {
  return new PageContractError(`the count from updatedSince=${updatedSince}`, [
    {
      path: '/totalCount',
      message: `grew from ${counted} to ${countedNow} while the feed's last row stayed the same: rows appeared before it, stamped at or before what the deployment's X-Feed-Settled-Through said was settled, so pages read by number may have skipped them (\`loadfeed verify\` finds them)`,
    },
  ]);
}
