// listLoads's filters, declared once: each query parameter that narrows the feed, the Load field and the
// loads column it reads, and how it matches (its kind). The query reader (list-loads-query.ts), the read
// filters' type, the matching the SDK's mock and the conformance kit share (filter-match.ts), the SDK's
// sync options and the kit's checks are made from this table; the server's feed_query attribute list
// (server/src/loads/feed-query.ts) is held to it by a test. Adding a filter: README.md, "Adding a filter".
// Pure data and types: the SDK's browser entry imports it.
import type { ListLoadsQuery, Load, LoadField } from './contract.js';
import * as facts from './generated/facts.js';

/**
 * How a filter matches a load's field:
 * - `since`: the field (a date-time) at or after the instant given, a date meaning its 00:00Z;
 * - `lower bound` / `upper bound`: the field (a date-time) inside the bound, inclusive, a date meaning its
 *   first / last millisecond;
 * - `set`: the field is one of the values given (the parameter repeats: OR);
 * - `exact`: the field equals the text given, case and all.
 * A load whose field is null matches no filter on it.
 */
export type FilterKind = 'since' | 'lower bound' | 'upper bound' | 'set' | 'exact';

/** The query parameters that filter: every listLoads parameter but the paging. */
export type FilterName = Exclude<keyof ListLoadsQuery, 'page' | 'pageSize'>;

export interface FilterDeclaration {
  /** The query parameter, as openapi.yaml names it. */
  readonly name: FilterName;
  /** The read filter's key (LoadFilters): the name, or its plural for a set. Its feed_query attribute is the key in snake_case. */
  readonly key: string;
  /** The Load field it reads. */
  readonly field: LoadField;
  /** The column of `loads` it reads (server/sql/functions/feed_loads.sql). */
  readonly column: string;
  readonly kind: FilterKind;
  /** A set's closed list of values. */
  readonly values?: readonly string[];
}

/** The filters, in the document's order; the table a new filter is added to. */
export const LIST_LOADS_FILTERS = [
  { name: 'updatedSince', key: 'updatedSince', field: 'updatedAt', column: 'updated_at', kind: 'since' },
  { name: 'status', key: 'statuses', field: 'status', column: 'status', kind: 'set', values: facts.LOAD_STATUSES },
  { name: 'pickupFrom', key: 'pickupFrom', field: 'scheduledPickupDate', column: 'scheduled_pickup_date', kind: 'lower bound' },
  { name: 'pickupTo', key: 'pickupTo', field: 'scheduledPickupDate', column: 'scheduled_pickup_date', kind: 'upper bound' },
  { name: 'deliveryFrom', key: 'deliveryFrom', field: 'scheduledDeliveryDate', column: 'scheduled_delivery_date', kind: 'lower bound' },
  { name: 'deliveryTo', key: 'deliveryTo', field: 'scheduledDeliveryDate', column: 'scheduled_delivery_date', kind: 'upper bound' },
  { name: 'poNumber', key: 'poNumber', field: 'poNumber', column: 'po_number', kind: 'exact' },
  { name: 'billingRefNumber', key: 'billingRefNumber', field: 'billingRefNumber', column: 'billing_ref_number', kind: 'exact' },
] as const satisfies readonly FilterDeclaration[];

type Declared = (typeof LIST_LOADS_FILTERS)[number];

// A parameter openapi.yaml adds without a row here fails to compile, naming it.
type Undeclared = Exclude<FilterName, Declared['name']>;
const everyFilterDeclared: [Undeclared] extends [never] ? true : Undeclared = true;
void everyFilterDeclared;

/** A read filter's value: a set's values (each once), or an instant (ISO, milliseconds) or a text. */
type FilterValue<D extends Declared> = D['kind'] extends 'set' ? NonNullable<Load[D['field']]>[] : string;

/** A listLoads request, validated: bounds are inclusive instants (ISO strings), absent filters undefined. */
export type LoadFilters = {
  page: number;
  /** After clamping to the server's maximum. */
  pageSize: number;
} & { [D in Declared as D['key']]?: FilterValue<D> };

/** The read filters' keys. */
export type FilterKey = Declared['key'];

/** The filters of one kind. */
export function filtersOfKind(...kinds: FilterKind[]): FilterDeclaration[] {
  return LIST_LOADS_FILTERS.filter((filter) => kinds.includes(filter.kind));
}
