// A client's copy of one customer's feed, kept the strictest way SPEC §4's loop allows: each poll asks
// for updatedSince = the largest updatedAt seen so far, with no overlap at all, and upserts by loadNumber.
// Only a settled feed lets such a copy equal the database's truth.
import { SETTLED_THROUGH_HEADER, type LoadPage } from '@loadfeed/spec';
import type pg from 'pg';

/** What the copy keeps of a load: enough to tell every write apart. */
export interface CopiedLoad {
  updatedAt: string;
  poNumber: string | null;
}

export interface FeedCopy {
  readonly rows: Map<string, CopiedLoad>;
  /** Requests until the feed says no more rows follow. */
  poll(): Promise<void>;
  /** Polls until `done` holds, for at most `timeoutMs`. */
  pollUntil(done: (rows: Map<string, CopiedLoad>) => boolean, timeoutMs?: number): Promise<void>;
}

interface Response {
  statusCode: number;
  payload: string;
  headers: Record<string, unknown>;
}

/** Rows per request: more than any test customer has, so one poll is one request unless a tie is long. */
const PAGE_SIZE = 1000;

export function feedCopy(get: (query: string) => Promise<Response>): FeedCopy {
  const rows = new Map<string, CopiedLoad>();
  let cursor: string | undefined;
  async function poll(): Promise<void> {
    for (;;) {
      const query = new URLSearchParams({ pageSize: String(PAGE_SIZE), ...(cursor ? { updatedSince: cursor } : {}) });
      const response = await get(query.toString());
      if (response.statusCode !== 200) throw new Error(`poll got ${response.statusCode}: ${response.payload}`);
      const page = JSON.parse(response.payload) as LoadPage;
      const horizon = response.headers[SETTLED_THROUGH_HEADER] as string;
      const before = cursor;
      for (const load of page.data) {
        if (load.updatedAt > horizon) throw new Error(`${load.loadNumber} at ${load.updatedAt} is newer than the horizon ${horizon}`);
        rows.set(load.loadNumber, { updatedAt: load.updatedAt, poNumber: load.poNumber });
        if (cursor === undefined || load.updatedAt > cursor) cursor = load.updatedAt;
      }
      if (!page.hasMore) return;
      if (cursor === before) throw new Error(`more than ${PAGE_SIZE} rows share ${cursor}: the copy cannot walk past them`);
    }
  }
  return {
    rows,
    poll,
    async pollUntil(done, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await poll();
        if (done(rows)) return;
        if (Date.now() > deadline) throw new Error('the copy did not reach the expected state in time');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

/** The database's truth for one customer's feed, in the copy's shape. */
export async function truthOf(db: pg.Pool | pg.Client, customerCode: string): Promise<Map<string, CopiedLoad>> {
  const { rows } = await db.query<{ load_number: string; updated_at: string; po_number: string | null }>(
    `SELECT l.load_number, to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, l.po_number
       FROM loads AS l JOIN customers AS c ON c.id = l.customer_id
      WHERE c.code = $1::text AND l.scheduled_pickup_date >= now() - interval '12 months'`,
    [customerCode],
  );
  return new Map(rows.map((row) => [row.load_number, { updatedAt: row.updated_at, poNumber: row.po_number }]));
}
