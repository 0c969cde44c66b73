// API keys as operators handle them: issue (the key is returned once and never again), revoke, list.
import type pg from 'pg';
import { generateKey, hashKey, keyHint } from './key-format.js';
import { customerIdOf, OperatorError } from '../customers.js';

export interface IssuedKey {
  id: string;
  /** The only time the key exists outside its holder's hands: show it once. */
  key: string;
  hint: string;
  customerCode: string;
  /** The key's own per-minute limit; null when the server's default applies. */
  rateLimit: number | null;
}

export interface KeyListing {
  id: string;
  hint: string;
  customerCode: string;
  rateLimit: number | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The `integer` column's range. */
const LARGEST_RATE_LIMIT = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createKey(pool: pg.Pool, customerCode: string, { rateLimit }: { rateLimit?: number } = {}): Promise<IssuedKey> {
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit >= 1 && rateLimit <= LARGEST_RATE_LIMIT)) {
    throw new OperatorError(`a key's rate limit must be a whole number from 1 to ${LARGEST_RATE_LIMIT} (got ${rateLimit})`);
  }
  const customerId = await customerIdOf(pool, customerCode);
  const key = generateKey();
  const hint = keyHint(key);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO api_keys (customer_id, key_hash, hint, rate_limit)
     VALUES ($1::bigint, $2::bytea, $3::text, $4::integer) RETURNING id`,
    [customerId, hashKey(key), hint, rateLimit ?? null],
  );
  return { id: rows[0]!.id, key, hint, customerCode, rateLimit: rateLimit ?? null };
}

/** Revokes a key at once: its next request gets a 401. Revoking a revoked key keeps the first time. */
export async function revokeKey(pool: pg.Pool, id: string): Promise<void> {
  if (!UUID.test(id)) throw new OperatorError(`${JSON.stringify(id)} is not a key id; \`keys list\` shows them`);
  const { rowCount } = await pool.query(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1::uuid',
    [id],
  );
  if (rowCount === 0) throw new OperatorError(`no key has the id ${id}; \`keys list\` shows them`);
}

/** Every key, or one customer's, oldest first; never the keys themselves, which are not stored. */
export async function listKeys(pool: pg.Pool, customerCode?: string): Promise<KeyListing[]> {
  if (customerCode !== undefined) await customerIdOf(pool, customerCode);
  const { rows } = await pool.query<KeyListing>(
    `SELECT k.id, k.hint, c.code AS "customerCode", k.rate_limit AS "rateLimit", k.created_at AS "createdAt",
            k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt"
       FROM api_keys AS k JOIN customers AS c ON c.id = k.customer_id
      WHERE $1::text IS NULL OR c.code = $1::text
      ORDER BY k.created_at, k.id`,
    [customerCode ?? null],
  );
  return rows;
}
