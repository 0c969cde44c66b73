// What a database's schema is, as text to compare: every function's definition, trigger (with its
// enabled state), index, type (a table's row type is its columns'), column, constraint and comment of the
// public schema.
import type pg from 'pg';

const CATALOG_SQL = {
  functions: `
SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS key, pg_get_functiondef(p.oid) AS definition
  FROM pg_proc AS p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`,
  triggers: `
SELECT t.tgname AS key, pg_get_triggerdef(t.oid) || ' ENABLED ' || t.tgenabled::text AS definition
  FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
 WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal ORDER BY 1`,
  indexes: `
SELECT c.relname AS key, pg_get_indexdef(c.oid) AS definition
  FROM pg_class AS c WHERE c.relkind = 'i' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`,
  types: `
SELECT t.typname AS key,
       t.typtype::text || ': ' || coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum AS e WHERE e.enumtypid = t.oid),
                                     (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY a.attnum)
                                        FROM pg_attribute AS a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped), '') AS definition
  FROM pg_type AS t
 WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'c', 'd') AND t.typname NOT LIKE '\\_%'
   AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class AS c WHERE c.oid = t.typrelid) = 'c')
 ORDER BY 1`,
  columns: `
SELECT c.relname || '.' || a.attname AS key,
       format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
         || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') || ' ' || a.attgenerated::text || a.attidentity::text
         || coalesce(' COMMENT ' || col_description(c.oid, a.attnum), '') AS definition
  FROM pg_attribute AS a
  JOIN pg_class AS c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p') AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY 1`,
  constraints: `
SELECT c.relname || '.' || k.conname AS key, pg_get_constraintdef(k.oid) AS definition
  FROM pg_constraint AS k JOIN pg_class AS c ON c.oid = k.conrelid
 WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1`,
  tables: `
SELECT c.relname AS key, c.relkind::text || ' ' || c.relpersistence::text || coalesce(' COMMENT ' || obj_description(c.oid, 'pg_class'), '') AS definition
  FROM pg_class AS c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p', 'S') ORDER BY 1`,
} as const;

export type Catalog = Record<keyof typeof CATALOG_SQL, Record<string, string>>;

/** The schema of the database `client` is connected to. */
export async function catalogOf(client: pg.ClientBase): Promise<Catalog> {
  const catalog = {} as Catalog;
  for (const [part, sql] of Object.entries(CATALOG_SQL) as [keyof Catalog, string][]) {
    const { rows } = await client.query<{ key: string; definition: string }>(sql);
    catalog[part] = Object.fromEntries(rows.map((row) => [row.key, row.definition]));
  }
  return catalog;
}
