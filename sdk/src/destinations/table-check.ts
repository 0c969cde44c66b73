// What a destination finds in a database that already holds its tables: each column the copy writes must
// be there, with a type that keeps the API's value exactly (a date-time as an instant, a decimal with every
// digit). A column that would change a value (a timestamp without time zone, a numeric with a scale, an
// integer) or that is missing is refused before anything is written, in one line that names the column
// and the statement that fixes it.
import { CliError } from '@loadfeed/spec/cli';

export interface FoundColumn {
  /** The type as the database spells it: `timestamp without time zone`, `numeric(10,0)`, `INTEGER`. */
  type: string;
  notNull: boolean;
}

export interface Misfit {
  column: string;
  /** Why the column cannot hold the copy: `is integer, which rounds decimals`. */
  why: string;
  /** The statement (or step) that fixes it. */
  fix: string;
}

/** Throws one CliError for the misfits of `table` (the first named, the rest counted); nothing when none. */
export function refuseMisfits(table: string, misfits: readonly Misfit[]): void {
  const [first] = misfits;
  if (first === undefined) return;
  const more = misfits.length > 1 ? ` (and ${misfits.length - 1} more column${misfits.length > 2 ? 's' : ''}: ${misfits.slice(1).map((misfit) => misfit.column).join(', ')})` : '';
  throw new CliError(`the table ${table} cannot hold the copy: column ${first.column} ${first.why}${more}; fix: ${first.fix}`);
}

/** After a fix that adds or retypes a column, the rows already copied are re-read from the start. */
export const RECOPY = 'then delete its cursor so the next sync copies every row again';
