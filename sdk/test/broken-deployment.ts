// A deployment on loopback that serves a fixed feed as SPEC §4 says (updatedSince, page numbers, pages
// of at most 100, updatedAt order, an exact totalCount) except for the one rule a test breaks. What a sync
// makes of each is an error or an exact copy, never a wrong copy with exit 0.
import type { IncomingMessage } from 'node:http';
import { SETTLED_THROUGH_HEADER, type Load } from '@loadfeed/spec';
import { contractRow, pageOf, queryOf, sendJson, startHostileServer, type HostileServer } from './hostile-server.js';

const MAX_PAGE_SIZE = 100;

export type Breakage =
  /** Pages of 99 rows while hasMore is true and pageSize echoes 100. */
  | 'short pages'
  /** Rows in loadNumber order, not updatedAt order. */
  | 'loadNumber order'
  /** hasMore false on every page, totalCount exact. */
  | 'hasMore false on page 1'
  /** Every page past the feed's 150th row repeats a loadNumber of its own, with other values. */
  | 'a loadNumber twice'
  /** Says the feed is settled through now, then, after `lateAfterRequest` requests, shows a row stamped in the past. */
  | 'a settled header that lies';

export interface BrokenDeployment extends HostileServer {
  /** The feed as it stands now, in updatedAt order. */
  feed(): Load[];
}

/** 1,000 rows; in loadNumber order their updatedAt values are shuffled, and 20 rows share each instant (ties that make page-number stretches pay). */
export function brokenFeed(): Load[] {
  return Array.from({ length: 1_000 }, (_, index) => {
    const instant = Date.UTC(2026, 0, 1) + Math.floor(((index * 7_919) % 1_000) / 20) * 60_000;
    return contractRow(index + 1, { updatedAt: new Date(instant).toISOString() });
  });
}

const feedOrder = (rows: Load[]) => [...rows].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.loadNumber < b.loadNumber ? -1 : 1));

export async function startBrokenDeployment(breakage: Breakage, options: { late?: { afterRequest: number; row: Load } } = {}): Promise<BrokenDeployment> {
  const rows = brokenFeed();
  let requests = 0;
  const server = await startHostileServer((request: IncomingMessage, response) => {
    requests += 1;
    if (options.late && requests === options.late.afterRequest + 1) rows.push(options.late.row);
    const query = queryOf(request.url!);
    const page = Number(query.get('page') ?? 1);
    const pageSize = Math.min(MAX_PAGE_SIZE, Number(query.get('pageSize') ?? MAX_PAGE_SIZE));
    const since = query.get('updatedSince');
    // Every row has no pickup date, so a pickup filter serves none of them.
    const byPickup = query.has('pickupFrom') || query.has('pickupTo');
    let matching = feedOrder(rows).filter((row) => !byPickup && (since === null || Date.parse(row.updatedAt) >= Date.parse(since)));
    if (breakage === 'loadNumber order') matching = [...matching].sort((a, b) => (a.loadNumber < b.loadNumber ? -1 : 1));
    const start = (page - 1) * pageSize;
    let data: Load[] = matching.slice(start, start + pageSize);
    let hasMore = start + pageSize < matching.length;
    if (breakage === 'short pages' && hasMore) data = data.slice(0, -1);
    if (breakage === 'hasMore false on page 1') hasMore = false;
    // Every page that starts past the feed's 150th row: the walk writes its first pages, then meets one.
    if (breakage === 'a loadNumber twice' && data.length > 20 && feedOrder(rows).findIndex((row) => row.loadNumber === data[0]!.loadNumber) >= 150) {
      data = [...data];
      data[20] = { ...data[20]!, loadNumber: data[19]!.loadNumber, miles: '9999.5' };
    }
    const headers: Record<string, string> = breakage === 'a settled header that lies' ? { [SETTLED_THROUGH_HEADER]: new Date().toISOString() } : {};
    sendJson(response, 200, pageOf(data, { page, pageSize, totalCount: matching.length, hasMore }), headers);
  });
  return Object.assign(server, { feed: () => feedOrder(rows) });
}
