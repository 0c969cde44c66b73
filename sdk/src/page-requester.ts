// How a sync run asks for pages: each page held to what SPEC implies of it (page-contract.ts), the order
// across pages by number from one anchor checked, and the page size the largest the contract allows until
// the deployment echoes its own, falling back once to SPEC's default where a deployment refuses it.
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CEILING } from '@loadfeed/spec';
import type { ListLoadsParams, Page } from './client.js';
import { BadRequestError } from './errors.js';
import { checkedPage, describeRequest, orderFaultAcrossPages, PageContractError } from './page-contract.js';
import { settledThroughOf } from './settled-through.js';
import type { SyncOptions } from './sync.js';

/** The requests of one sync run, and what they taught it: the page size served, and how far the feed is settled. */
export function createPageRequester(options: SyncOptions) {
  const { client, signal } = options;
  // Unless the caller chose, ask for the contract's largest page: a deployment that serves fewer clamps
  // and echoes its own maximum (SPEC §4), so asking costs nothing, and the fewest requests follow.
  let pageSize = options.pageSize ?? PAGE_SIZE_CEILING;
  let served: number | undefined;
  let mayFallBack = options.pageSize === undefined && pageSize > DEFAULT_PAGE_SIZE;
  let pages = 0;
  // How far the responses since the last reset said the feed was settled (for removal detection).
  let settled: number | undefined;

  // Every page is held to what SPEC implies of it (page-contract.ts) before any of it is handed over.
  async function request(updatedSince: string | undefined, page: number, size: number): Promise<Page> {
    const params: ListLoadsParams = { ...options.filters, page, pageSize: size };
    if (updatedSince !== undefined) params.updatedSince = updatedSince;
    const call = { ...(signal ? { signal } : {}), ...(options.onWait ? { onWait: options.onWait } : {}) };
    return checkedPage(() => client.listLoads(params, call), { updatedSince, page });
  }

  // The page the run read last by `fetch`: the next one by number from the same anchor continues its order.
  let previous: { updatedSince: string | undefined; number: number; page: Page } | undefined;
  function checkOrderAfter(updatedSince: string | undefined, number: number, page: Page): void {
    const before = previous;
    previous = { updatedSince, number, page };
    if (before === undefined || before.updatedSince !== updatedSince || before.page.pageSize !== page.pageSize) return;
    if (settledThroughOf(before.page) === undefined || settledThroughOf(page) === undefined) return;
    const fault = orderFaultAcrossPages(before.page, before.number, page, number);
    if (fault) throw new PageContractError(describeRequest({ updatedSince, page: number }), [fault]);
  }

  return {
    async fetch(updatedSince: string | undefined, page: number, size = pageSize): Promise<Page> {
      let result: Page;
      try {
        result = await request(updatedSince, page, size);
      } catch (error) {
        // A deployment off the contract may refuse a large page instead of clamping it: fall back to
        // SPEC's default once, and say so; a 400 for anything else comes back at the default size too.
        if (!(mayFallBack && error instanceof BadRequestError)) throw error;
        mayFallBack = false;
        options.onPageSizeRefused?.({ requested: size, fallback: DEFAULT_PAGE_SIZE, error });
        pageSize = DEFAULT_PAGE_SIZE;
        result = await request(updatedSince, page, pageSize);
      }
      mayFallBack = false;
      pages += 1;
      checkOrderAfter(updatedSince, page, result);
      settled = settledThroughOf(result) ?? settled;
      // Ask for what the deployment serves from now on: the key walk's tied groups count pages of that size.
      if (Number.isSafeInteger(result.pageSize) && result.pageSize >= 1 && result.pageSize <= size) {
        served = result.pageSize;
        pageSize = result.pageSize;
      }
      return result;
    },
    /** One request at a size of its own (a stretch's check), leaving the size the run asks for alone. */
    async probe(updatedSince: string | undefined, page: number, size: number): Promise<Page> {
      const result = await request(updatedSince, page, size);
      pages += 1;
      settled = settledThroughOf(result) ?? settled;
      return result;
    },
    /** The page size asked for now. */
    pageSize: () => pageSize,
    /** The page size the deployment served (the envelope's echo), once a page came back. */
    served: () => served,
    /** Responses handled so far. */
    pages: () => pages,
    settledThrough: () => settled,
    resetSettled(): void {
      settled = undefined;
    },
  };
}
