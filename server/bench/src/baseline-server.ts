// The baseline of the benchmark: what a first, plain implementation of the feed would be. Bare node:http
// and pg; the key looked up by its hash; then `count(*)` and `LIMIT/OFFSET` over the customer's loads in
// the window (./baseline-queries.ts), on the same tables and indexes as the reference server, with the
// same pool settings and the same serialization, so that the comparison is about the queries and the stack.
import { createServer, type ServerResponse } from 'node:http';
import { LIST_LOADS_PATH, feedWindowStart } from '@loadfeed/spec';
import { hashKey } from '../../dist/auth/key-format.js';
import { createPool } from '../../dist/db/pool.js';
import { serializeLoad, type LoadRow } from './node-serialize.js';
import { BASELINE_COUNT_SQL, BASELINE_KEY_SQL, BASELINE_PAGE_SQL, baselinePageParameters, baselineScope } from './baseline-queries.js';

const MAX_PAGE_SIZE = 100;

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('baseline-server: DATABASE_URL is required');
const pool = createPool(databaseUrl, { max: 10 });

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return send(response, 404, { error: 'Not Found' });
  const key = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  const customer = key ? (await pool.query<{ customer_id: string }>(BASELINE_KEY_SQL, [hashKey(key)])).rows[0] : undefined;
  if (!customer) return send(response, 401, { error: 'Unauthorized' });
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(url.searchParams.get('pageSize') ?? 100) || 100));
  const windowStart = feedWindowStart(new Date());
  const { rows: counted } = await pool.query<{ total: number }>(BASELINE_COUNT_SQL, baselineScope(customer.customer_id, windowStart));
  const { rows } = await pool.query<LoadRow>(BASELINE_PAGE_SQL, baselinePageParameters(customer.customer_id, windowStart, page, pageSize));
  const totalCount = counted[0]!.total;
  send(response, 200, { data: rows.map(serializeLoad), page, pageSize, totalCount, hasMore: page * pageSize < totalCount });
}

const server = createServer((request, response) => {
  handle(new URL(request.url ?? '/', 'http://baseline'), request.headers.authorization, response).catch((error: unknown) => {
    process.stderr.write(`baseline-server: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!response.headersSent) send(response, 500, { error: 'Internal Server Error' });
  });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`baseline listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}\n`);
});

const shutdown = (): void => {
  server.close(() => void pool.end());
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
