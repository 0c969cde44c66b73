// The baseline's SQL: plain `count(*)` and `LIMIT/OFFSET` over full rows. Kept apart so that the
// baseline server runs it and the sweep measurement EXPLAINs exactly the same statements.
import { LOAD_SELECT_LIST } from './node-serialize.js';

export const BASELINE_KEY_SQL = 'SELECT customer_id::text FROM api_keys WHERE key_hash = $1::bytea AND revoked_at IS NULL';

export const BASELINE_COUNT_SQL = `SELECT count(*)::integer AS total FROM loads AS l
 WHERE l.customer_id = $1::bigint AND l.scheduled_pickup_date >= $2::timestamptz`;

export const BASELINE_PAGE_SQL = `SELECT ${LOAD_SELECT_LIST} FROM loads AS l
 WHERE l.customer_id = $1::bigint AND l.scheduled_pickup_date >= $2::timestamptz
 ORDER BY l.updated_at, l.id LIMIT $3::integer OFFSET $4::integer`;

/** The parameters of BASELINE_COUNT_SQL; BASELINE_PAGE_SQL takes these and then limit and offset. */
export function baselineScope(customerId: string, windowStart: Date): unknown[] {
  return [customerId, windowStart.toISOString()];
}

export function baselinePageParameters(customerId: string, windowStart: Date, page: number, pageSize: number): unknown[] {
  return [...baselineScope(customerId, windowStart), pageSize, (page - 1) * pageSize];
}
