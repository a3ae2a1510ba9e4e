// The contract between the sandbox's OData query engine (this folder) and the resources that use it.
// The engine is pure: it parses query options against a description of the queryable fields and
// evaluates them against records through an accessor. It knows nothing of HTTP or storage.

export type ODataType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date'
  | 'date-time'
  | 'string[]'
  | 'integer[]';

export type ComparisonOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
export type FilterOp = ComparisonOp | 'in' | 'contains' | 'startswith' | 'endswith' | 'and' | 'or' | 'not';

export interface QueryField {
  name: string;
  type: ODataType;
  /** Multilingual: may be addressed as `<name>_<culture>` in $filter. */
  multilingual?: boolean;
  /** Operators allowed on this field; default: all. (Changelog: `author_type` and `attribute_id` allow `eq` only.) */
  operators?: ComparisonOp[] | Array<ComparisonOp | 'in' | 'contains' | 'startswith' | 'endswith'>;
  /** Field may appear in $filter only when this other field is also compared in the same filter (changelog `author_id` needs `author_type`). */
  requires?: string;
  /** Usable in $orderby. Default true. */
  sortable?: boolean;
  /** Usable in $select. Default true. */
  selectable?: boolean;
}

export interface QuerySchema {
  /** Look a field up by its exact name (catalog names are case-sensitive; the DAM passes lower-cased names and sets caseInsensitive). */
  fields: ReadonlyMap<string, QueryField>;
  /** Tenant cultures, for `<field>_<culture>`. Empty when the resource has no multilingual fields. */
  languages: readonly string[];
  /** Field names match case-insensitively (DAM). */
  caseInsensitive?: boolean;
  /** Date-time literals may carry an offset such as +02:00 (legacy attribute-set list only); otherwise offsets are a 400. */
  allowOffsets?: boolean;
  /** How an unknown property is reported. Default: `Could not find a property named '<name>'`. Changelogs use `Unknown property: '<name>'`. */
  unknownPropertyMessage?: (name: string) => string;
  /** Entity type named in the default unknown-property message (`... on type 'Product'.`). */
  typeName?: string;
}

/** A parsed $filter. */
export type FilterExpr =
  | { kind: 'compare'; op: ComparisonOp; field: string; culture?: string; value: Literal }
  | { kind: 'in'; field: string; culture?: string; values: Literal[] }
  | {
      kind: 'func';
      name: 'contains' | 'startswith' | 'endswith';
      field: string;
      culture?: string;
      value: string;
    }
  | { kind: 'and' | 'or'; left: FilterExpr; right: FilterExpr }
  | { kind: 'not'; expr: FilterExpr };

/** Literal values: strings, numbers (as JS numbers; big integers beyond 2^53 as bigint), booleans, null, Date for date/date-time. */
export type Literal = string | number | bigint | boolean | null | Date;

/** Reads a field of a record, in a culture when the filter named one (`prod_title_fr`) or undefined for the request's culture. */
export type FieldAccessor<R> = (record: R, field: string, culture: string | undefined) => unknown;

export interface OrderBy {
  field: string;
  descending: boolean;
  /** Set when a multilingual field was named with a culture suffix (`prod_title_fr asc`). */
  culture?: string;
}

/**
 * A query option the engine refuses. The resource turns it into the catalog's 400:
 * `{ validationFailures: { [parameter]: [{ PropertyName, ErrorMessage, AttemptedValue }] } }`.
 */
export class ODataError extends Error {
  constructor(
    /** `$filter`, `$orderby`, `$select`, `$expand`, `$top`, `$skip`, `$skipToken`. */
    readonly parameter: string,
    message: string,
    /** PropertyName of the failure: the offending property when there is one, else the parameter. */
    readonly propertyName: string,
    /** AttemptedValue: the text the client sent. */
    readonly attemptedValue: string,
  ) {
    super(message);
    this.name = 'ODataError';
  }
}

/**
 * What `src/sandbox/odata/index.ts` exports (implemented in that folder):
 *
 *   parseFilter(text: string, schema: QuerySchema): FilterExpr             // throws ODataError
 *   evaluateFilter<R>(expr: FilterExpr, record: R, get: FieldAccessor<R>): boolean
 *   parseOrderBy(text: string, schema: QuerySchema, opts?: { singleOnly?: boolean; firstOnly?: boolean }): OrderBy
 *       // singleOnly: several expressions -> ODataError (catalog); firstOnly: the first is honoured, rest ignored (DAM)
 *   compareForOrder(a: unknown, b: unknown): number                       // nulls first ascending; strings by code unit
 *   parseSelect(text: string, schema: QuerySchema): string[]               // unknown or nested -> ODataError
 *   parseIntOption(name: '$top' | '$skip', text: string | null, range: { min: number; max?: number }): number | undefined
 *   equalityValues(expr: FilterExpr, field: string): Literal[] | undefined
 *       // when the filter can only match records whose `field` is one of these values (`field eq x`,
 *       // `field in (...)`, or either of those ANDed with anything), so callers can use an index
 *   fieldsUsed(expr: FilterExpr): string[]
 */
