// The feed's query as one feed_query value (sql/types/feed_query.sql), the one parameter every page
// statement reads. PostgreSQL's text form of a row is positional, so the value is built from the type's
// attributes in their order, listed here, and each filter finds its attribute by name (its key in
// snake_case, @loadfeed/spec's LIST_LOADS_FILTERS): test/db/feed-query.test.ts holds this list to the
// type's attributes in a migrated database, and every declared filter to an attribute of it.
import { LIST_LOADS_FILTERS, type LoadFilters } from '@loadfeed/spec';

/** feed_query's attributes, in the type's order (ALTER TYPE … ADD ATTRIBUTE appends one at the end). */
export const FEED_QUERY_ATTRIBUTES = [
  'customer_id',
  'window_start',
  'updated_since',
  'statuses',
  'pickup_from',
  'pickup_to',
  'delivery_from',
  'delivery_to',
  'po_number',
  'billing_ref_number',
  'settled_through',
] as const;

/** What the query's scope gives: whose feed, the window's start and the settled horizon (ISO). */
export interface FeedQueryScope {
  customerId: string;
  windowStart: Date;
  settledThrough: string;
}

/** A filter's feed_query attribute: its key in snake_case (`billingRefNumber` → `billing_ref_number`). */
export function attributeOf(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

const FILTER_BY_ATTRIBUTE: ReadonlyMap<string, (typeof LIST_LOADS_FILTERS)[number]> = new Map(LIST_LOADS_FILTERS.map((filter) => [attributeOf(filter.key), filter]));

/** A field of a row or array literal, double-quoted with its quotes and backslashes escaped. */
function quotedField(value: string): string {
  return `"${value.replace(/["\\]/g, (character) => `\\${character}`)}"`;
}

/** A filter's value as its attribute's text: a set as an array literal. */
function fieldOf(value: string | readonly string[] | undefined): string | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? value : `{${value.map(quotedField).join(',')}}`;
}

/** The query as a feed_query value in PostgreSQL's text form of a row: (a,b,...), nothing between commas for NULL. */
export function feedQueryValue({ customerId, windowStart, settledThrough }: FeedQueryScope, filters: LoadFilters): string {
  const byKey = filters as unknown as Record<string, string | readonly string[] | undefined>;
  const scope: Record<string, string> = { customer_id: customerId, window_start: windowStart.toISOString(), settled_through: settledThrough };
  const fields = FEED_QUERY_ATTRIBUTES.map((attribute) => {
    const filter = FILTER_BY_ATTRIBUTE.get(attribute);
    return filter ? fieldOf(byKey[filter.key]) : scope[attribute]!;
  });
  return `(${fields.map((field) => (field === null ? '' : quotedField(field))).join(',')})`;
}
