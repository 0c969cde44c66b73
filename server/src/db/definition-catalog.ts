// What the database runs of each file of server/sql, as PostgreSQL renders it (pg_get_functiondef,
// pg_get_triggerdef with the enabled state, pg_get_indexdef, a type's labels or attributes), so that a
// definition changed by hand is seen: `migrate` records each file's rendering when it applies the file
// (sql_definitions.catalog), and what the database runs later is compared with that record. A record is
// tied to the file's checksum and to this way of rendering (RENDERING), so that a record another release
// wrote, or one left stale by a release that does not keep records, is never taken for a change by hand.
import type pg from 'pg';

/** How the renderings below are made; a record made another way is no basis for a comparison. */
const RENDERING = 'v1';

/**
 * Each named file's object as the database runs it, or NULL where there is none: every overload of a
 * function, a trigger with its enabled state, an index with its validity, a type's kind with its labels
 * or attributes. The names are files of server/sql (`functions/feed_state.sql`, `triggers/loads.x.sql`),
 * looked for in the session's schema, where migrate creates them.
 */
const renderingsOfNames = (names: string): string => `
SELECT n.name, md5(CASE d.kind
  WHEN 'functions' THEN (SELECT string_agg(pg_get_functiondef(p.oid), E'\\n' ORDER BY pg_get_function_identity_arguments(p.oid))
                           FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = s.oid AND p.proname = d.object)
  WHEN 'triggers' THEN (SELECT pg_get_triggerdef(t.oid) || ' ENABLED ' || t.tgenabled::text
                          FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid
                         WHERE c.relnamespace = s.oid AND c.relname = split_part(d.object, '.', 1) AND t.tgname = substr(d.object, strpos(d.object, '.') + 1))
  WHEN 'indexes' THEN (SELECT pg_get_indexdef(c.oid) || CASE WHEN i.indisvalid THEN '' ELSE ' INVALID' END
                         FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_index AS i ON i.indexrelid = c.oid
                        WHERE c.relnamespace = s.oid AND c.relname = d.object)
  WHEN 'types' THEN (SELECT t.typtype::text || ': ' || coalesce(
                              (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum AS e WHERE e.enumtypid = t.oid),
                              (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY a.attnum)
                                 FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped), '')
                       FROM pg_catalog.pg_type AS t WHERE t.typnamespace = s.oid AND t.typname = d.object)
  END) AS rendering
  FROM unnest(${names}) AS n(name)
 CROSS JOIN LATERAL (SELECT split_part(n.name, '/', 1) AS kind, regexp_replace(split_part(n.name, '/', 2), '\\.sql$', '') AS object) AS d
 CROSS JOIN (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema()) AS s`;

const RENDERINGS_SQL = renderingsOfNames('$1::text[]');

/**
 * What sql_definitions records of each file beside what the database runs of it, read in one statement:
 * a migrate that commits a changed file (its object and its record together, sql-definitions.ts) between
 * two reads would make its new object look like a change by hand of the old record.
 */
const RECORDED_AND_RUNNING_SQL = `
SELECT recorded.name, recorded.checksum, recorded.catalog, running.rendering
  FROM sql_definitions AS recorded
  JOIN (${renderingsOfNames('ARRAY(SELECT name FROM sql_definitions)')}) AS running USING (name)
 ORDER BY recorded.name`;

/** Each file's rendering (an md5), or null where the database has no such object. */
export async function renderingsOf(db: Pick<pg.ClientBase, 'query'>, names: string[]): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ name: string; rendering: string | null }>(RENDERINGS_SQL, [names]);
  return new Map(rows.map((row) => [row.name, row.rendering]));
}

export interface RecordedAndRunning {
  name: string;
  checksum: string;
  /** sql_definitions.catalog: what was recorded of the file's object (catalogRecord). */
  catalog: string | null;
  /** What the database runs of it now, or null where it has no such object. */
  rendering: string | null;
}

/** Every file sql_definitions records, with what the database runs of it, as of one moment. */
export async function recordedAndRunning(db: Pick<pg.ClientBase, 'query'>): Promise<RecordedAndRunning[]> {
  return (await db.query<RecordedAndRunning>(RECORDED_AND_RUNNING_SQL)).rows;
}

/** The record of a file's rendering, as sql_definitions.catalog keeps it. */
export function catalogRecord(checksum: string, rendering: string | null): string {
  return `${RENDERING} ${checksum} ${rendering ?? 'missing'}`;
}

/**
 * The rendering a record says the database ran when the file with `checksum` was applied (null: its
 * object was missing), or undefined when the record is no basis for a comparison: absent, made another
 * way, or made for another text of the file.
 */
export function recordedRendering(record: string | null, checksum: string): string | null | undefined {
  const [rendering, recordedChecksum, made] = (record ?? '').split(' ');
  if (rendering !== RENDERING || recordedChecksum !== checksum || made === undefined) return undefined;
  return made === 'missing' ? null : made;
}

/** A file whose object differs from what was applied (or, for a type or an index, from what the migrations made). */
export interface DefinitionDrift {
  name: string;
  /** `missing`: the object is gone; `changed`: it is there, but not as applied. */
  how: 'missing' | 'changed';
}

export function driftOf(name: string, recorded: string | null | undefined, actual: string | null | undefined): DefinitionDrift | undefined {
  if (recorded === undefined || actual === undefined || recorded === actual) return undefined;
  return { name, how: actual === null ? 'missing' : 'changed' };
}

/** "functions/feed_state.sql (missing), …": the drifts, as a line names them. */
export function describeDrifts(drifts: DefinitionDrift[]): string {
  return drifts.map((drift) => `${drift.name} (${drift.how})`).join(', ');
}
