// Customers: the unit every key and every load belongs to. Operators add them through the CLI.
import type pg from 'pg';

/** Letters, digits, `_`, `.` and `-`, starting with a letter or digit, up to 64 characters (as the table checks). */
const CUSTOMER_CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const UNIQUE_VIOLATION = '23505';

export interface Customer {
  code: string;
  name: string;
  createdAt: Date;
}

/** A failure an operator can act on; its message is one line that says what to do. */
export class OperatorError extends Error {
  override name = 'OperatorError';
}

export async function addCustomer(pool: pg.Pool, code: string, name: string = code): Promise<Customer> {
  if (!CUSTOMER_CODE.test(code)) {
    throw new OperatorError(`customer code ${JSON.stringify(code)} must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit`);
  }
  if (name.trim() === '') throw new OperatorError('a customer name must not be empty');
  try {
    const { rows } = await pool.query<Customer>(
      `INSERT INTO customers (code, name) VALUES ($1::text, $2::text)
       RETURNING code, name, created_at AS "createdAt"`,
      [code, name],
    );
    return rows[0]!;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new OperatorError(`customer ${JSON.stringify(code)} exists already`);
    throw error;
  }
}

export async function listCustomers(pool: pg.Pool): Promise<Customer[]> {
  const { rows } = await pool.query<Customer>('SELECT code, name, created_at AS "createdAt" FROM customers ORDER BY code');
  return rows;
}

/** The internal id of a customer, or an OperatorError naming the unknown code. */
export async function customerIdOf(db: pg.Pool | pg.PoolClient, code: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text AS id FROM customers WHERE code = $1::text', [code]);
  if (!rows[0]) throw new OperatorError(`no customer has the code ${JSON.stringify(code)}; add it with \`customers add\``);
  return rows[0].id;
}
