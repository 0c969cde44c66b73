// bench:horizon, part 1: a request's database work with and without the horizon, from 8 concurrent
// connections: the admission (admit_request: key lookup, rate-limit count, horizon) and page 1 with its count
// kept, against the same with a copy of admit_request that skips the horizon, made in the bench database.
// Throughput ratio; and the median round trip of the horizon alone against `SELECT 1`.
import { LAST_USED_RESOLUTION_MS } from '../../../dist/admission/credentials.js';
import { hashKey } from '../../../dist/admission/key-format.js';
import { choosePageStatement, feedParameters } from '../../../dist/loads/list.js';
import { COUNT_SQL } from '../../../dist/loads/list-statements.js';
import { feedWindowStart, RATE_WINDOW_MS } from '@loadfeed/spec';
import { CONNECTIONS, type HorizonBench, log, median, ROUNDS, SECONDS, UNLIMITED } from './common.js';

/** Measures and prints part 1 for the customer's `key`, of `loads` loads. */
export async function requestCost({ pool, customerId }: HorizonBench, key: string, loads: number): Promise<void> {
  const windowStart = feedWindowStart(new Date());
  const filters = { page: 1, pageSize: 100 };

  // admit_request without its last steps: the baseline that does everything but fix the settled state
  // (the horizon, from the stored reading or a fresh one, and the feed version after it); its key lookup
  // still joins the version and the stored reading. A body that no longer holds those steps where this
  // expects them stops the run, so that the baseline can never quietly be the server's own function.
  const SETTLED_FROM = 'customer_slot := feed_writer_slot(customer_id);';
  const SETTLED_UNTIL = '\nEND';
  const { rows: source } = await pool.query<{ body: string }>(
    "SELECT pg_get_functiondef(p.oid) AS body FROM pg_proc AS p WHERE p.proname = 'admit_request' AND p.prokind = 'p' AND p.pronamespace = current_schema()::regnamespace",
  );
  const body = source[0]!.body;
  const [from, until] = [body.indexOf(SETTLED_FROM), body.lastIndexOf(SETTLED_UNTIL)];
  if (from < 0 || until < from) throw new Error('bench:horizon: admit_request no longer fixes the settled state where this baseline expects');
  await pool.query(
    `${body.slice(0, from)}settled_through := clock_timestamp(); feed_version := 0;\n  ${body.slice(until)}`.replace('PROCEDURE public.admit_request(', 'PROCEDURE public.admit_request_unsettled('),
  );
  const admit = (horizon: boolean) =>
    `CALL ${horizon ? 'admit_request' : 'admit_request_unsettled'}($1::bytea, $2::integer, $3::interval, $4::interval${', NULL'.repeat(11)})`;
  const keyHash = hashKey(key);
  const count = Number(
    (await pool.query<{ total_count: string }>(COUNT_SQL, feedParameters({ customerId, windowStart, settledThrough: new Date().toISOString() }, filters))).rows[0]!.total_count,
  );

  /** One request's database work: admission, then page 1 with its count kept, as the server does. */
  async function request(horizon: boolean): Promise<number> {
    const started = performance.now();
    const admitted = (await pool.query<{ settled_through: Date }>(admit(horizon), [keyHash, UNLIMITED, `${RATE_WINDOW_MS} milliseconds`, `${LAST_USED_RESOLUTION_MS} milliseconds`])).rows[0]!;
    const took = performance.now() - started;
    const { sql, values } = choosePageStatement({ customerId, windowStart, settledThrough: admitted.settled_through.toISOString() }, filters, count);
    await pool.query(sql, values);
    return took;
  }

  async function throughput(horizon: boolean): Promise<{ perSecond: number; admissionMs: number[] }> {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    const admissionMs: number[] = [];
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          admissionMs.push(await request(horizon));
          done += 1;
        }
      }),
    );
    return { perSecond: done / SECONDS, admissionMs };
  }

  log('loadfeed settled-feed benchmark');
  log(`  ${loads} loads for the measured customer; ${CONNECTIONS} connections, ${SECONDS} s runs, median of ${ROUNDS} alternating rounds`);
  await throughput(true);
  const without: number[] = [];
  const withHorizon: number[] = [];
  const admission: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const plain = await throughput(false);
    without.push(plain.perSecond);
    admission.without.push(...plain.admissionMs);
    const settled = await throughput(true);
    withHorizon.push(settled.perSecond);
    admission.with.push(...settled.admissionMs);
  }
  // The horizon alone, one statement after another on an otherwise idle connection.
  const alone: Record<'horizon' | 'one', number[]> = { horizon: [], one: [] };
  for (let index = 0; index < 2_000; index++) {
    for (const [label, sql] of [['one', 'SELECT 1'], ['horizon', 'SELECT feed_settled_through($1::bigint)']] as const) {
      const started = performance.now();
      await pool.query(sql, label === 'one' ? [] : [customerId]);
      alone[label].push(performance.now() - started);
    }
  }
  const [before, after] = [median(without), median(withHorizon)];
  const ms = (values: number[]) => `${median(values).toFixed(3)} ms`;
  log();
  log('| request work: admission (key, rate-limit count[, horizon]) + page 1, count kept | requests/s | admission median |');
  log('|---|---:|---:|');
  log(`| without the horizon | ${before.toFixed(0)} | ${ms(admission.without)} |`);
  log(`| with the horizon (the server's admit_request) | ${after.toFixed(0)} | ${ms(admission.with)} |`);
  log(`| ratio with / without (goal >= 0.95) | ${(after / before).toFixed(2)} | |`);
  log();
  log(`horizon alone, one connection: ${ms(alone.horizon)} against ${ms(alone.one)} for SELECT 1 (added: ${(median(alone.horizon) - median(alone.one)).toFixed(3)} ms; goal <= 0.2 ms)`);
}
