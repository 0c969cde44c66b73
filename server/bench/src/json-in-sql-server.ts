// A baseline written the way PostgREST serves a table: bare node:http and pg, the key looked up by its
// hash, then one statement whose result is the page's JSON, built by PostgreSQL with
// json_agg(json_build_object(...)) and date-times formatted in SQL, passed through as text. It counts
// nothing (PostgREST counts only when asked), keeps no rate limit and no settled horizon: the least work
// that serves the same rows.
import { createServer, type ServerResponse } from 'node:http';
import { LIST_LOADS_PATH, LOAD_FIELDS, feedWindowStart } from '@loadfeed/spec';
import { hashKey } from '../../dist/auth/key-format.js';
import { columnOf, sqlTypeOf } from '../../dist/loads/columns.js';
import { createPool } from '../../dist/db/pool.js';
import { BASELINE_KEY_SQL } from './baseline-queries.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('json-in-sql-server: DATABASE_URL is required');
const pool = createPool(databaseUrl, { max: 10 });

const value = (field: (typeof LOAD_FIELDS)[number]): string => {
  const column = `l.${columnOf(field)}`;
  if (sqlTypeOf(field) === 'timestamptz') return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (sqlTypeOf(field) === 'numeric') return `${column}::text`;
  return column;
};
const PAGE_JSON_SQL = `
SELECT coalesce(json_agg(json_build_object(${LOAD_FIELDS.map((field) => `'${field}', ${value(field)}`).join(', ')}) ORDER BY l.updated_at, l.id), '[]')::text AS data
  FROM (SELECT id FROM loads WHERE customer_id = $1::bigint AND scheduled_pickup_date >= $2::timestamptz
         ORDER BY updated_at, id OFFSET $3::bigint LIMIT $4::bigint) AS page
  JOIN loads AS l ON l.id = page.id`;

function send(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return send(response, 404, '{"error":"Not found"}');
  const key = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  const customer = key ? (await pool.query<{ customer_id: string }>(BASELINE_KEY_SQL, [hashKey(key)])).rows[0] : undefined;
  if (!customer) return send(response, 401, '{"error":"Unauthorized"}');
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const pageSize = Math.min(100, Math.max(1, Number(url.searchParams.get('pageSize') ?? 100) || 100));
  const { rows } = await pool.query<{ data: string }>(PAGE_JSON_SQL, [customer.customer_id, feedWindowStart(new Date()).toISOString(), (page - 1) * pageSize, pageSize]);
  send(response, 200, rows[0]!.data);
}

const server = createServer((request, response) => {
  handle(new URL(request.url ?? '/', 'http://json-in-sql'), request.headers.authorization, response).catch((error: unknown) => {
    process.stderr.write(`json-in-sql-server: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!response.headersSent) send(response, 500, '{"error":"Internal server error"}');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`json-in-sql listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}\n`);
});
const shutdown = (): void => {
  server.close(() => void pool.end());
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
