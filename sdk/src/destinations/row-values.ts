// A copy's row read as an array of its values in LOAD_FIELDS order, named: the drivers give arrays far
// more cheaply than objects (each object's properties are set one by one through the engine's API), and
// a loop over the field names here builds every row with one shape.
import { LOAD_FIELDS } from '@loadfeed/spec';
import type { LoadRow } from '../client.js';

export function rowOfValues(values: readonly unknown[]): LoadRow {
  const row: Record<string, unknown> = {};
  for (let index = 0; index < LOAD_FIELDS.length; index += 1) row[LOAD_FIELDS[index]!] = values[index];
  return row as unknown as LoadRow;
}
