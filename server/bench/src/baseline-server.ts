// The baseline of the benchmark: what a first, plain implementation of the feed would be. Bare node:http
// and pg; the key looked up by its hash; then `count(*)` and `LIMIT/OFFSET` over the customer's loads in
// the window (./baseline-queries.ts), on the same tables and indexes as the reference server, with the
// same pool settings and the same serialization, so that the comparison is about the queries and the stack.
import type { ServerResponse } from 'node:http';
import { LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import { hashKey } from '../../dist/admission/key-format.js';
import { serializeLoad, type LoadRow } from './node-serialize.js';
import { BASELINE_COUNT_SQL, BASELINE_KEY_SQL, BASELINE_PAGE_SQL, baselinePageParameters, baselineScope } from './baseline-queries.js';
import { bearerKey, MAX_PAGE_SIZE, pageParameters, poolFor, send, serveBare } from './bare-server.js';

const pool = poolFor('baseline');
const sendJson = (response: ServerResponse, status: number, body: unknown): void => send(response, status, JSON.stringify(body));

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return sendJson(response, 404, { error: 'Not Found' });
  const key = bearerKey(authorization);
  const customer = key ? (await pool.query<{ customer_id: string }>(BASELINE_KEY_SQL, [hashKey(key)])).rows[0] : undefined;
  if (!customer) return sendJson(response, 401, { error: 'Unauthorized' });
  const { page, pageSize } = pageParameters(url, MAX_PAGE_SIZE);
  const windowStart = feedWindowStart(new Date());
  const { rows: counted } = await pool.query<{ total: number }>(BASELINE_COUNT_SQL, baselineScope(customer.customer_id, windowStart));
  const { rows } = await pool.query<LoadRow>(BASELINE_PAGE_SQL, baselinePageParameters(customer.customer_id, windowStart, page, pageSize));
  const totalCount = counted[0]!.total;
  sendJson(response, 200, { data: rows.map(serializeLoad), page, pageSize, totalCount, hasMore: page * pageSize < totalCount });
}

serveBare('baseline', pool, handle);
