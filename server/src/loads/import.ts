// Importing loads (the CLI's `import`, the test server's importLoads): the whole input is checked
// first and nothing is written if any row is bad; then rows are upserted by loadNumber in one
// transaction, so that nothing of an import is visible until all of it is, even when it is killed
// part-way. Each row is stamped when it is written, and the settled feed (migrations/0006) holds the
// customer's feed back while the import runs instead of letting a change slip behind clients' cursors.
// A row whose values did not change is not written at all, and keeps its updatedAt; the database's
// trigger keeps the rule for every other writer too.
import type pg from 'pg';
import { customerIdOf, OperatorError } from '../customers/customers.js';
import { withTransaction } from '../db/pool.js';
import { columnOf, sqlTypeOf, WRITABLE_LOAD_FIELDS } from './columns.js';
import { checkLoadInput, type LoadRecord } from './load-input.js';

/** Rows per statement: a bounded parameter and a bounded result, in the import's one transaction. */
export const IMPORT_BATCH_SIZE = 1000;

export interface NumberedRow {
  /** Where the row came from (a line of an NDJSON file), for messages. */
  line: number;
  value: unknown;
}

export interface ImportSummary {
  inserted: number;
  changed: number;
  unchanged: number;
}

export interface ImportProblem {
  line: number;
  message: string;
}

/** An input with bad rows; nothing was written. `problems` names every one, in line order. */
export class ImportRejectedError extends OperatorError {
  override name = 'ImportRejectedError';
  constructor(readonly problems: ImportProblem[]) {
    super(`nothing imported: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the input`);
  }
}

const KEYED = new Set(['loadNumber']);
const UPDATED_FIELDS = WRITABLE_LOAD_FIELDS.filter((field) => !KEYED.has(field));
const column = (field: string) => columnOf(field as (typeof WRITABLE_LOAD_FIELDS)[number]);
/** A value as the API shows it, which is what "unchanged" compares (the trigger's rule, migrations/0010):
 * decimals as the strings stored, so 10.5 over 10.50 is a change. */
const shown = (table: string, field: string) =>
  sqlTypeOf(field as (typeof WRITABLE_LOAD_FIELDS)[number]) === 'numeric' ? `${table}.${column(field)}::text` : `${table}.${column(field)}`;

// Built once from the field table, so that a field added to the contract and the table cannot be
// forgotten here; it holds identifiers only, every value is a parameter.
const UPSERT_SQL = `
INSERT INTO loads AS l (customer_id, ${WRITABLE_LOAD_FIELDS.map(column).join(', ')})
SELECT $1::bigint, ${WRITABLE_LOAD_FIELDS.map((field) => `r."${field}"`).join(', ')}
  FROM jsonb_to_recordset($2::jsonb) AS r(${WRITABLE_LOAD_FIELDS.map((field) => `"${field}" ${sqlTypeOf(field)}`).join(', ')})
    ON CONFLICT (customer_id, ${column('loadNumber')}) DO UPDATE
   SET ${UPDATED_FIELDS.map((field) => `${column(field)} = excluded.${column(field)}`).join(', ')}
 WHERE (${UPDATED_FIELDS.map((field) => shown('l', field)).join(', ')})
       IS DISTINCT FROM (${UPDATED_FIELDS.map((field) => shown('excluded', field)).join(', ')})
RETURNING (l.xmax = 0) AS inserted`;

/** Every row checked, or every problem found; a loadNumber may appear once in one input. */
export function checkImport(rows: readonly NumberedRow[]): { records: LoadRecord[]; problems: ImportProblem[] } {
  const records: LoadRecord[] = [];
  const problems: ImportProblem[] = [];
  const firstLineOf = new Map<string, number>();
  for (const { line, value } of rows) {
    const check = checkLoadInput(value);
    if (!check.ok) {
      problems.push(...check.problems.map((message) => ({ line, message })));
      continue;
    }
    const first = firstLineOf.get(check.record.loadNumber);
    if (first !== undefined) {
      problems.push({ line, message: `loadNumber ${JSON.stringify(check.record.loadNumber)} appears already on line ${first}` });
      continue;
    }
    firstLineOf.set(check.record.loadNumber, line);
    records.push(check.record);
  }
  return { records, problems };
}

/** Upserts rows for a customer, all or nothing on validation; throws ImportRejectedError listing every bad line. */
export async function importLoads(pool: pg.Pool, customerCode: string, rows: readonly NumberedRow[]): Promise<ImportSummary> {
  const { records, problems } = checkImport(rows);
  if (problems.length > 0) throw new ImportRejectedError(problems);
  const customerId = await customerIdOf(pool, customerCode);
  return withTransaction(pool, async (client) => {
    const summary: ImportSummary = { inserted: 0, changed: 0, unchanged: 0 };
    for (let start = 0; start < records.length; start += IMPORT_BATCH_SIZE) {
      const batch = records.slice(start, start + IMPORT_BATCH_SIZE);
      const written = await client.query<{ inserted: boolean }>(UPSERT_SQL, [customerId, JSON.stringify(batch)]);
      const inserted = written.rows.filter((row) => row.inserted).length;
      summary.inserted += inserted;
      summary.changed += written.rows.length - inserted;
      summary.unchanged += batch.length - written.rows.length;
    }
    return summary;
  });
}
