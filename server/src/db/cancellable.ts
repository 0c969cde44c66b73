// One request's statements, cancelled when the request's client goes away: a statement that keeps
// running after its client left holds a backend (and, in admission/turn.ts, a turn) for nothing; 50 clients
// of one key asking for deep pages and leaving after 30-150 ms once left 57 requests waiting in the pool
// and another customer's requests at 9.25 s.
//
// Each statement runs on a connection checked out for it. When the signal aborts while it runs, the
// statement is cancelled with PostgreSQL's CancelRequest (a new connection carrying the backend's key
// data; PgBouncer passes it on to the right server connection), and the connection is then closed rather
// than returned to the pool: a cancel still on its way could otherwise reach the next statement run on it.
import { connect, type Socket } from 'node:net';
import type pg from 'pg';
import type { Queryable } from './pool.js';

/** The protocol's CancelRequest code (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

/** What node-postgres keeps of a connection that a CancelRequest needs (from BackendKeyData and the connection's parameters). */
interface CancelTarget {
  host: string;
  port: number;
  processID: number | null;
  secretKey: number | null;
}

/** Sends a CancelRequest for the statement `client` runs now; PostgreSQL answers nothing, and a backend that is idle by then ignores it. */
function sendCancel(client: pg.PoolClient): void {
  const { host, port, processID, secretKey } = client as unknown as CancelTarget;
  if (processID === null || secretKey === null) return;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const socket: Socket = host.startsWith('/') ? connect({ path: `${host}/.s.PGSQL.${port}` }) : connect({ host, port });
  // Nothing to do if it cannot be sent: the statement then ends at its statement_timeout.
  socket.on('error', () => socket.destroy());
  socket.setTimeout(5_000, () => socket.destroy());
  socket.once('connect', () => socket.end(message));
}

/**
 * What cancelling a statement needs of a signal. An AbortSignal is one; the concurrency gate's turn is
 * another, made without an AbortController (admission/turn.ts says why).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** `pool`'s statements, each cancelled when `signal` aborts while it runs (and refused once it has). */
export function cancellable(pool: pg.Pool, signal: CancelSignal): Queryable {
  const query = async (sql: string, values?: unknown[]) => {
    signal.throwIfAborted();
    const client = await pool.connect();
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      sendCancel(client);
    };
    signal.addEventListener('abort', cancel, { once: true });
    // As the pool's own query does, a connection whose statement failed is closed, not reused: after a
    // missed deadline it may still owe an answer.
    let failure: Error | undefined;
    try {
      return await client.query(sql, values);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      signal.removeEventListener('abort', cancel);
      client.release(cancelled || failure);
    }
  };
  return { query } as unknown as Queryable;
}
