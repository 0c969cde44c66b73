// A baseline written the way PostgREST serves a table: bare node:http and pg, the key looked up by its
// hash, then one statement whose result is the page's JSON, built by PostgreSQL with
// json_agg(json_build_object(...)) and date-times formatted in SQL, passed through as text. It counts
// nothing (PostgREST counts only when asked), keeps no rate limit and no settled horizon: the least work
// that serves the same rows. The filters of bench:scale (status, date-time bounds, updatedSince, poNumber) are
// its WHERE, each `$n IS NULL OR ...`, which PostgreSQL folds away when it plans the statement with its values,
// as PostgREST leaves out the conditions not asked for; it reads the same indexes as ours.
import type { ServerResponse } from 'node:http';
import { LIST_LOADS_PATH, LOAD_FIELDS, feedWindowStart } from '@loadfeed/spec';
import { hashKey } from '../../dist/admission/key-format.js';
import { columnOf, sqlTypeOf } from '../../dist/loads/columns.js';
import { bearerKey, MAX_PAGE_SIZE, pageParameters, poolFor, send, serveBare } from './bare-server.js';
import { BASELINE_KEY_SQL } from './baseline-queries.js';

const pool = poolFor('json-in-sql');

const value = (field: (typeof LOAD_FIELDS)[number]): string => {
  const column = `l.${columnOf(field)}`;
  if (sqlTypeOf(field) === 'timestamptz') return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (sqlTypeOf(field) === 'numeric') return `${column}::text`;
  return column;
};
const PAGE_JSON_SQL = `
SELECT coalesce(json_agg(json_build_object(${LOAD_FIELDS.map((field) => `'${field}', ${value(field)}`).join(', ')}) ORDER BY l.updated_at, l.id), '[]')::text AS data
  FROM (SELECT id FROM loads WHERE customer_id = $1::bigint AND scheduled_pickup_date >= $2::timestamptz
           AND ($5::timestamptz IS NULL OR updated_at >= $5::timestamptz)
           AND ($6::load_status[] IS NULL OR status = ANY ($6::load_status[]))
           AND ($7::timestamptz IS NULL OR scheduled_pickup_date >= $7::timestamptz)
           AND ($8::timestamptz IS NULL OR scheduled_pickup_date <= $8::timestamptz)
           AND ($9::timestamptz IS NULL OR scheduled_delivery_date >= $9::timestamptz)
           AND ($10::timestamptz IS NULL OR scheduled_delivery_date <= $10::timestamptz)
           AND ($11::text IS NULL OR po_number = $11::text)
         ORDER BY updated_at, id OFFSET $3::bigint LIMIT $4::bigint) AS page
  JOIN loads AS l ON l.id = page.id`;

async function handle(url: URL, authorization: string | undefined, response: ServerResponse): Promise<void> {
  if (url.pathname !== LIST_LOADS_PATH) return send(response, 404, '{"error":"Not found"}');
  const key = bearerKey(authorization);
  const customer = key ? (await pool.query<{ customer_id: string }>(BASELINE_KEY_SQL, [hashKey(key)])).rows[0] : undefined;
  if (!customer) return send(response, 401, '{"error":"Unauthorized"}');
  const { page, pageSize } = pageParameters(url, MAX_PAGE_SIZE);
  const given = (name: string) => url.searchParams.get(name);
  const statuses = url.searchParams.getAll('status');
  const filters = [given('updatedSince'), statuses.length > 0 ? statuses : null, given('pickupFrom'), given('pickupTo'), given('deliveryFrom'), given('deliveryTo'), given('poNumber')];
  const { rows } = await pool.query<{ data: string }>(PAGE_JSON_SQL, [customer.customer_id, feedWindowStart(new Date()).toISOString(), (page - 1) * pageSize, pageSize, ...filters]);
  send(response, 200, rows[0]!.data);
}

serveBare('json-in-sql', pool, handle);
