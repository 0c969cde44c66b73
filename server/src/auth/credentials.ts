// What a valid key stands for, and the one lookup that turns a presented key into it.
import type pg from 'pg';
import { hashKey } from './key-format.js';

export interface ApiKeyCredentials {
  keyId: string;
  customerId: string;
  customerCode: string;
  /** The key's own per-minute limit; null when the server's default applies. */
  rateLimit: number | null;
}

declare module '@hapi/hapi' {
  interface AppCredentials extends ApiKeyCredentials {}
}

/** How stale `last_used_at` may get: recording every use would turn each read into a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyRow {
  key_id: string;
  customer_id: string;
  customer_code: string;
  rate_limit: number | null;
  last_used_at: Date | null;
}

/** The credentials of an active (issued, not revoked) key, or null. */
export async function findActiveKey(pool: pg.Pool, key: string, now: Date): Promise<ApiKeyCredentials | null> {
  const { rows } = await pool.query<KeyRow>(
    `SELECT k.id AS key_id, k.customer_id::text AS customer_id, c.code AS customer_code, k.rate_limit, k.last_used_at
       FROM api_keys AS k
       JOIN customers AS c ON c.id = k.customer_id
      WHERE k.key_hash = $1::bytea AND k.revoked_at IS NULL`,
    [hashKey(key)],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    await recordUse(pool, row.key_id, now);
  }
  return { keyId: row.key_id, customerId: row.customer_id, customerCode: row.customer_code, rateLimit: row.rate_limit };
}

async function recordUse(pool: pg.Pool, keyId: string, now: Date): Promise<void> {
  // The condition repeats the staleness check so that concurrent requests on several instances write once.
  await pool.query(
    `UPDATE api_keys SET last_used_at = $2::timestamptz
      WHERE id = $1::uuid AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - $3::integer * interval '1 millisecond')`,
    [keyId, now, LAST_USED_RESOLUTION_MS],
  );
}
