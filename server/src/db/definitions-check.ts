// Whether the database runs the definitions of server/sql as they were applied (definition-catalog.ts):
// a function dropped or edited by hand, a trigger re-made or switched off. A page that needs a dropped
// function answers 500, and a `loads_keep_updated_at` that no longer stamps a change hides it from every
// delta client; so `start` refuses such a database and /readyz says it is not ready, naming each file and
// what puts it back. A type or an index that differs from what the migrations made is a warning: the
// feed stays correct, if slower. A database migrated by a newer release is compared with what that
// release applied, so an instance of the previous release beside it is not refused.
import type { Logger } from 'pino';
import type pg from 'pg';
import { OperatorError } from '../customers.js';
import { describeDrifts, driftOf, recordedAndRunning, recordedRendering, type DefinitionDrift, type RecordedAndRunning } from './definition-catalog.js';

export class DefinitionsDriftError extends OperatorError {
  override name = 'DefinitionsDriftError';
}

/** No table or no column: a database no release with these records has migrated; there is nothing to compare with. */
const NOT_RECORDED = new Set(['42P01', '42703']);

/**
 * Readings a drift check takes at most. A migrate that commits a changed file while a reading runs can make
 * that reading see its new record beside its old object, or the other way round: the record is read as of
 * the statement's snapshot, but pg_get_functiondef and its kin read the catalog as it is when they run: one
 * statement (recordedAndRunning) does not make them agree (test/db/definitions-drift-concurrent.test.ts saw
 * dozens of false 'changed' with it alone), nor would a REPEATABLE READ transaction. Such a mismatch
 * never comes back, the catalog having moved on; a change by hand stays. So a drift is believed when the
 * next reading finds the same record and the same object; one that differs each time, this many times,
 * is believed as read last.
 */
const MAX_READINGS = 5;

interface Drifting {
  drift: DefinitionDrift;
  /** The record and the object this reading saw: two readings that agree on both saw a drift that stays. */
  seen: string;
}

/** One reading: every file whose record and object differ; none when nothing is recorded. */
async function driftingNow(db: Pick<pg.ClientBase, 'query'>): Promise<Drifting[]> {
  let rows: RecordedAndRunning[];
  try {
    rows = await recordedAndRunning(db);
  } catch (error) {
    if (NOT_RECORDED.has((error as { code?: string }).code ?? '')) return [];
    throw error;
  }
  return rows.flatMap((row) => {
    const drift = driftOf(row.name, recordedRendering(row.catalog, row.checksum), row.rendering);
    return drift ? [{ drift, seen: `${row.checksum} ${row.catalog} ${row.rendering}` }] : [];
  });
}

/** Every file whose object the database runs otherwise than was applied (or, a type's or index's, than the migrations made). */
export async function definitionDrift(db: Pick<pg.ClientBase, 'query'>): Promise<DefinitionDrift[]> {
  let before = new Map<string, string>();
  for (let reading = 1; ; reading += 1) {
    const drifting = await driftingNow(db);
    if (reading === MAX_READINGS || drifting.every((each) => before.get(each.drift.name) === each.seen)) return drifting.map((each) => each.drift);
    before = new Map(drifting.map((each) => [each.drift.name, each.seen]));
  }
}

/** A function's or trigger's file: what the feed's correctness rests on, and what `migrate` puts back. */
export function isRepeatable(drift: DefinitionDrift): boolean {
  return drift.name.startsWith('functions/') || drift.name.startsWith('triggers/');
}

/** The one line that refuses a database running functions or triggers otherwise than applied, or undefined. */
export function describeRepeatableDrift(drifts: DefinitionDrift[]): string | undefined {
  const repeatable = drifts.filter(isRepeatable);
  if (repeatable.length === 0) return undefined;
  return `the database runs definitions of server/sql otherwise than migrate applied them: ${describeDrifts(repeatable)}; run \`loadfeed-server migrate\` to put them back`;
}

/** The warning for types and indexes that differ from what the migrations made, or undefined. */
export function describeFixedDrift(drifts: DefinitionDrift[]): string | undefined {
  const fixed = drifts.filter((drift) => !isRepeatable(drift));
  if (fixed.length === 0) return undefined;
  return `types or indexes differ from what the migrations made: ${describeDrifts(fixed)}; migrate does not rewrite them: make each again as its file in server/sql says`;
}

/**
 * The start-up check: throws DefinitionsDriftError naming every function or trigger that differs from
 * what was applied; warns of types and indexes that differ.
 */
export async function checkDefinitions(db: Pick<pg.ClientBase, 'query'>, logger?: Logger): Promise<void> {
  const drifts = await definitionDrift(db);
  const fixed = describeFixedDrift(drifts);
  if (fixed !== undefined) logger?.warn(fixed);
  const refusal = describeRepeatableDrift(drifts);
  if (refusal !== undefined) throw new DefinitionsDriftError(refusal);
}
