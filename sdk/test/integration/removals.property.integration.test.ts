// Removals against the real reference server while the operator writes: random deletes, moves to another
// customer (and back), pickup dates moved out of the window (and back in), inserts and updates, between
// and during syncs, with writers held open across a sync. After a sync with no writer running, the copy
// equals the feed: every served load unmarked and current, every other load of the window marked
// removed, and a load that aged out of the window kept, unmarked. REMOVALS_PROPERTY_RUNS=50 runs longer.
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryCursorStore, syncLoads } from '../../src/index.js';
import { loadInput } from '../helpers.js';
import { memoryRemovalCopy } from '../removals-copy.js';
import { useTestServer } from './fixture.js';

const kit = useTestServer();
const RUNS = Number(process.env.REMOVALS_PROPERTY_RUNS ?? 3);
const DAY_MS = 86_400_000;
const LOADS = 40;

type Op = { kind: 'delete' | 'move' | 'moveBack' | 'pickupOut' | 'pickupIn' | 'pickupChange' | 'update' | 'insert'; pick: number };
const op = fc.record({ kind: fc.constantFrom('delete', 'move', 'moveBack', 'pickupOut', 'pickupIn', 'pickupChange', 'update', 'insert'), pick: fc.nat(1_000) }) as fc.Arbitrary<Op>;
const round = fc.record({ between: fc.array(op, { maxLength: 6 }), during: fc.array(op, { maxLength: 4 }), held: fc.array(op, { maxLength: 2 }) });

describe('removals while the operator writes (reference server)', () => {
  const connections: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: kit.databaseUrl });
    await client.connect();
    connections.push(client);
    return client;
  };
  let db: pg.Client;
  // Writes during a sync may meet a row a held writer has locked: they give up instead of waiting for it.
  let impatient: pg.Client;
  beforeAll(async () => {
    db = await connect();
    impatient = await connect();
    await impatient.query(`SET lock_timeout = '100ms'`);
  });
  afterAll(async () => {
    await Promise.all(connections.map((client) => client.end().catch(() => {})));
  });

  it('after a sync with no writer running: copy == feed, removed rows marked, aged-out rows kept, nothing served marked', async () => {
    let inserted = 10_000;
    await fc.assert(
      fc.asyncProperty(fc.array(round, { minLength: 1, maxLength: 3 }), async (rounds) => {
        const a = await kit.customer();
        const b = await kit.customer();
        const pickupIn = (pick: number) => new Date(Date.now() - (5 + (pick % 340)) * DAY_MS + pick * 1000).toISOString();
        await kit.server.importLoads(a.code, Array.from({ length: LOADS }, (_, index) => loadInput(index + 1, { scheduledPickupDate: pickupIn(index * 37) })));
        const numbersOf = async (code: string) =>
          (await db.query<{ n: string }>('SELECT load_number AS n FROM loads WHERE customer_id = (SELECT id FROM customers WHERE code = $1::text) ORDER BY load_number', [code])).rows.map((row) => row.n);

        async function apply(client: pg.Client, { kind, pick }: Op): Promise<void> {
          if (kind === 'insert') {
            inserted += 1;
            await client.query(
              `INSERT INTO loads (customer_id, load_number, status, scheduled_pickup_date) VALUES ((SELECT id FROM customers WHERE code = $1::text), $2::text, 'Available', $3::timestamptz)`,
              [a.code, `L${inserted}`, pickupIn(pick)],
            );
            return;
          }
          const pool = await numbersOf(kind === 'moveBack' ? b.code : a.code);
          const loadNumber = pool[pick % Math.max(1, pool.length)];
          if (loadNumber === undefined) return;
          const where = `customer_id = (SELECT id FROM customers WHERE code = $1::text) AND load_number = $2::text`;
          const statements: Record<Op['kind'], [string, unknown[]]> = {
            delete: [`DELETE FROM loads WHERE ${where}`, []],
            move: [`UPDATE loads SET customer_id = (SELECT id FROM customers WHERE code = $3::text) WHERE ${where}`, [b.code]],
            moveBack: [`UPDATE loads SET customer_id = (SELECT id FROM customers WHERE code = $3::text) WHERE ${where}`, [a.code]],
            pickupOut: [`UPDATE loads SET scheduled_pickup_date = now() - interval '400 days' WHERE ${where}`, []],
            pickupIn: [`UPDATE loads SET scheduled_pickup_date = $3::timestamptz WHERE ${where}`, [pickupIn(pick)]],
            pickupChange: [`UPDATE loads SET scheduled_pickup_date = $3::timestamptz WHERE ${where}`, [pickupIn(pick * 7)]],
            update: [`UPDATE loads SET po_number = $3::text WHERE ${where}`, [`PO-${pick}`]],
            insert: ['', []],
          };
          const [sql, extra] = statements[kind];
          await client.query(sql, [kind === 'moveBack' ? b.code : a.code, loadNumber, ...extra]);
        }

        const copy = memoryRemovalCopy();
        const cursorStore = memoryCursorStore();
        const client = a.client();
        // A small page, so that counts are bisected rather than every range read at once.
        const sync = () => syncLoads({ client, cursorStore, pageSize: 5, upsert: (rows) => copy.upsert(rows), removals: copy.removals });
        await sync();
        // A load the copy kept from before the window: history, never compared.
        copy.rows.set('AGED', { ...copy.rows.values().next().value!, loadNumber: 'AGED', scheduledPickupDate: new Date(Date.now() - 400 * DAY_MS).toISOString() });

        for (const { between, during, held } of rounds) {
          for (const change of between) await apply(db, change);
          const writers = await Promise.all(held.map(async (change) => {
            const writer = await connect();
            await writer.query(`SET lock_timeout = '100ms'`);
            await writer.query('BEGIN');
            await apply(writer, change).catch(() => {});
            return writer;
          }));
          await Promise.all([
            sync(),
            (async () => {
              for (const change of during) {
                await new Promise((resolve) => setTimeout(resolve, 5));
                await apply(impatient, change).catch(() => {});
              }
            })(),
          ]);
          for (const writer of writers) {
            await writer.query('COMMIT').catch(() => writer.query('ROLLBACK'));
            await writer.end();
          }
        }

        // No writer runs now.
        const summary = await sync();
        const served = await a.served();
        const current = copy.unmarked().filter((loadNumber) => loadNumber !== 'AGED');
        expect(current).toEqual(served.map((load) => load.loadNumber).sort());
        for (const load of served) expect(copy.rows.get(load.loadNumber)?.updatedAt).toBe(load.updatedAt);
        expect(copy.removed.has('AGED')).toBe(false);
        const servedNumbers = new Set(served.map((load) => load.loadNumber));
        expect([...copy.removed.keys()].filter((loadNumber) => servedNumbers.has(loadNumber))).toEqual([]);
        // Everything else the copy holds left the feed, and is marked.
        expect([...copy.rows.keys()].filter((loadNumber) => loadNumber !== 'AGED' && !servedNumbers.has(loadNumber) && !copy.removed.has(loadNumber))).toEqual([]);
        expect(summary.removalsPending).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });
});
