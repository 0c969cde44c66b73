// The start-up check of the settled feed (sql/functions/feed_settled_through.sql, sql/triggers/): the
// server serves a row only below a horizon it computes from the writers' locks in pg_locks, and only the
// loads triggers stamp, announce and count every writer's changes, so a server that cannot see the locks,
// or whose triggers are missing, disabled or not ALWAYS (`pg_restore --disable-triggers` leaves them in the
// default mode, which the replication apply worker skips), would serve an unsafe feed without knowing it.
// It refuses to start instead, and /readyz says the same while it runs, in one line that names the fix.
import pg from 'pg';
import { OperatorError } from '../customers.js';
import { definitionDrift, describeRepeatableDrift } from './definitions-check.js';

export class SettledFeedUnavailableError extends OperatorError {
  override name = 'SettledFeedUnavailableError';
}

/** No customer has id 0 (ids start at 1), so the probe's writer holds back no real feed. */
const PROBE_CUSTOMER = '0';

/**
 * The loads triggers the feed relies on (sql/triggers/), each with the mode it must fire in
 * (pg_trigger.tgenabled): ALWAYS ('A'); or, for the counters' statement triggers, the default mode ('O'),
 * each beside a row trigger of replica mode only ('R'), so that exactly one of the two fires in any session.
 */
export const FEED_TRIGGER_MODES: Readonly<Record<string, 'A' | 'O' | 'R'>> = {
  loads_keep_updated_at: 'A',
  loads_bump_feed_versions: 'A',
  loads_bump_feed_versions_changed: 'A',
  loads_bump_feed_versions_deleted: 'A',
  loads_bump_feed_versions_truncated: 'A',
  loads_count_inserted: 'O',
  loads_count_inserted_replicated: 'R',
  loads_count_changed: 'A',
  loads_count_deleted: 'O',
  loads_count_deleted_replicated: 'R',
  loads_count_truncated: 'A',
};

export const FEED_TRIGGERS = Object.keys(FEED_TRIGGER_MODES);

/** The statement that puts a feed trigger back in its mode. */
export function enableFeedTrigger(name: string): string {
  const mode = { A: 'ALWAYS ', O: '', R: 'REPLICA ' }[FEED_TRIGGER_MODES[name] ?? 'A'];
  return `ALTER TABLE loads ENABLE ${mode}TRIGGER ${name}`;
}

const TRIGGER_MODES: Record<string, string> = {
  A: 'fires ALWAYS, beside a trigger that does its work in the other modes',
  O: 'fires only while session_replication_role is origin (the default mode), so replicated and replica-role writes skip it',
  R: 'fires only while session_replication_role is replica',
  D: 'is disabled',
};

const TRIGGERS_SQL = `
SELECT t.tgname AS name, t.tgenabled AS enabled
  FROM pg_catalog.pg_trigger AS t
 WHERE t.tgrelid = to_regclass('loads') AND t.tgname = ANY ($1::text[])`;

/**
 * Why the feed's triggers cannot be relied on, in one line that says what to run, or undefined when
 * every one is present and in its mode.
 */
export async function feedTriggerProblem(pool: Pick<pg.Pool, 'query'>): Promise<string | undefined> {
  const { rows } = await pool.query<{ name: string; enabled: string }>(TRIGGERS_SQL, [FEED_TRIGGERS]);
  const modes = new Map(rows.map((row) => [row.name, row.enabled]));
  for (const name of FEED_TRIGGERS) {
    const mode = modes.get(name);
    if (mode === undefined) return `the settled feed's trigger ${name} on loads is missing; re-create it as server/sql/triggers/loads.${name}.sql does`;
    if (mode !== FEED_TRIGGER_MODES[name]) return `the settled feed's trigger ${name} on loads ${TRIGGER_MODES[mode] ?? `has mode ${mode}`}; as the table's owner run: ${enableFeedTrigger(name)}`;
  }
  return undefined;
}

/** How long /readyz reuses one reading of the triggers and definitions: load balancers ask every second or so. */
const TRIGGER_READING_MS = 1_000;

/**
 * For /readyz: feedTriggerProblem, else a function or trigger the database runs otherwise than applied
 * (definitions-check.ts), read at most once a second; a reading that fails (the database does not answer,
 * which /readyz reports on its own) reports nothing.
 */
export function watchFeedDefinitions(pool: Pick<pg.Pool, 'query'>, now: () => number = Date.now): () => Promise<string | undefined> {
  let reading: { at: number; problem: Promise<string | undefined> } | undefined;
  const read = async () => (await feedTriggerProblem(pool)) ?? describeRepeatableDrift(await definitionDrift(pool));
  return () => {
    if (reading === undefined || now() - reading.at >= TRIGGER_READING_MS) {
      reading = { at: now(), problem: read().catch(() => undefined) };
    }
    return reading.problem;
  };
}

const PRIVILEGES_SQL = `
SELECT current_user AS role,
       to_regprocedure('feed_settled_through(bigint)') IS NOT NULL AS migrated,
       has_table_privilege('pg_catalog.pg_locks', 'SELECT') AS reads_locks`;

/**
 * Throws SettledFeedUnavailableError unless the server's role can compute the horizon: the migration
 * is there, the feed's triggers fire ALWAYS, pg_locks is readable, and a writer announced on one connection holds the horizon back as
 * seen from another (what every request relies on). The writer is a connection of its own, made with
 * the pool's settings: with DB_POOL_SIZE=1 the pool has no second connection to give.
 */
export async function checkSettledFeed(pool: pg.Pool): Promise<void> {
  const { role, migrated, reads_locks: readsLocks } = (await pool.query<{ role: string; migrated: boolean; reads_locks: boolean }>(PRIVILEGES_SQL)).rows[0]!;
  if (!migrated) throw new SettledFeedUnavailableError('the database has no settled-feed functions: run `loadfeed-server migrate` first');
  const triggers = await feedTriggerProblem(pool);
  if (triggers !== undefined) throw new SettledFeedUnavailableError(triggers);
  if (!readsLocks) {
    throw new SettledFeedUnavailableError(
      `role ${role} cannot read pg_catalog.pg_locks, which the settled feed needs; as a superuser run: GRANT SELECT ON pg_catalog.pg_locks TO ${role}`,
    );
  }
  const writer = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
  await writer.connect();
  try {
    await writer.query('BEGIN');
    // An hour back, so that the horizon it holds down cannot be mistaken for the clock's own.
    const announced = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    await writer.query('SELECT announce_feed_writer($1::bigint, $2::timestamptz)', [PROBE_CUSTOMER, announced]);
    const horizon = (await pool.query<{ horizon: Date }>('SELECT feed_settled_through($1::bigint) AS horizon', [PROBE_CUSTOMER])).rows[0]!.horizon;
    if (horizon.getTime() >= announced.getTime()) {
      throw new SettledFeedUnavailableError(
        `role ${role} does not see other sessions' writer locks in pg_catalog.pg_locks, which the settled feed needs; as a superuser run: GRANT SELECT ON pg_catalog.pg_locks TO ${role}`,
      );
    }
  } finally {
    await writer.end().catch(() => {});
  }
}
