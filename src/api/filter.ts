// Building OData `$filter` text that the services accept:
//   strings in single quotes with quotes doubled; numbers and big integers unquoted; null; booleans;
//   dates as 2023-12-01; date-times always in UTC with Z (a local time or an offset is converted,
//   never sent); `in (...)`; functions contains/startswith/endswith; a multilingual field addressed
//   in one language as `<field>_<culture>`.
// `chunkIn` splits a long `in` list so each request URL, measured encoded as it will be sent, stays
// under the ~8,000-character limit the catalog answers 414 beyond.
import { CatalogIoError } from '../errors.js';
import { encodeQuery, type Query } from './url.js';

/** A date without time: `2023-12-01`. */
export interface DateOnly {
  kind: 'date';
  value: string;
}

export type FilterValue = string | number | bigint | boolean | null | Date | DateOnly;

/** Marks a value as a calendar date (`2023-12-01`), from a Date (its UTC day) or `YYYY-MM-DD`. */
export function dateOnly(value: Date | string): DateOnly {
  if (value instanceof Date) return { kind: 'date', value: value.toISOString().slice(0, 10) };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw invalid(`a date must read YYYY-MM-DD, found ${JSON.stringify(value)}`);
  return { kind: 'date', value };
}

/** A date-time in UTC with Z. Accepts a Date or ISO text with an offset (converted); text without zone is refused. */
export function utcDateTime(value: Date | string): Date {
  if (value instanceof Date) return value;
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(value)) {
    throw invalid(
      `a date-time must name its zone (Z or +02:00) so it can be converted to UTC, found ${JSON.stringify(value)}`,
    );
  }
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw invalid(`not a date-time: ${JSON.stringify(value)}`);
  return d;
}

/** One literal as OData text. */
export function literal(value: FilterValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return `'${value.replaceAll("'", "''")}'`;
    case 'number':
      if (!Number.isFinite(value)) throw invalid(`a number in a filter must be finite, found ${value}`);
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      break;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid('an invalid Date cannot be filtered on');
    // toISOString is always UTC with Z; drop zero milliseconds for readability.
    return value.toISOString().replace('.000Z', 'Z');
  }
  return value.value;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A property name, with its language suffix when a culture is named: `prod_title_fr`. */
export function field(name: string, culture?: string): string {
  if (!FIELD_NAME.test(name))
    throw invalid(`not a property name usable in a filter: ${JSON.stringify(name)}`);
  if (culture === undefined) return name;
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(culture))
    throw invalid(`not a culture code: ${JSON.stringify(culture)}`);
  return `${name}_${culture}`;
}

export type ComparisonOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

export interface FieldOptions {
  /** Address a multilingual field in one language. */
  culture?: string;
}

export function compare(
  name: string,
  op: ComparisonOp,
  value: FilterValue,
  options: FieldOptions = {},
): string {
  return `${field(name, options.culture)} ${op} ${literal(value)}`;
}

export const eq = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'eq', value, options);
export const ne = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'ne', value, options);
export const gt = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'gt', value, options);
export const ge = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'ge', value, options);
export const lt = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'lt', value, options);
export const le = (name: string, value: FilterValue, options?: FieldOptions): string =>
  compare(name, 'le', value, options);

/** `field in ('a','b')`. An empty list is refused: it would match nothing, and the service rejects `in ()`. */
export function inList(name: string, values: readonly FilterValue[], options: FieldOptions = {}): string {
  if (values.length === 0) throw invalid(`an in list for ${name} needs at least one value`);
  return `${field(name, options.culture)} in (${values.map(literal).join(',')})`;
}

export function contains(name: string, text: string, options: FieldOptions = {}): string {
  return `contains(${field(name, options.culture)},${literal(text)})`;
}
export function startsWith(name: string, text: string, options: FieldOptions = {}): string {
  return `startswith(${field(name, options.culture)},${literal(text)})`;
}
export function endsWith(name: string, text: string, options: FieldOptions = {}): string {
  return `endswith(${field(name, options.culture)},${literal(text)})`;
}

export function and(...parts: string[]): string {
  return join('and', parts);
}
export function or(...parts: string[]): string {
  return join('or', parts);
}
export function not(part: string): string {
  return `not (${part})`;
}

/** A whole UTC day of a date-time field, as the spec asks: `ge start and lt next day`. */
export function onDay(name: string, day: DateOnly | string): string {
  const d = typeof day === 'string' ? dateOnly(day) : day;
  const start = new Date(`${d.value}T00:00:00Z`);
  const next = new Date(start.getTime() + 86_400_000);
  return and(ge(name, start), lt(name, next));
}

function join(op: 'and' | 'or', parts: string[]): string {
  const present = parts.filter((p) => p.trim() !== '');
  if (present.length === 1) return present[0]!;
  return present.map((p) => `(${p})`).join(` ${op} `);
}

/** Default budget for a request URL: under the service's ~8,000-character limit with room to spare. */
export const URL_BUDGET = 7_800;

export interface ChunkInOptions extends FieldOptions {
  /** The collection URL the filter is sent to, e.g. `catalog.url('/Products')`. */
  baseUrl: string;
  /** The other query parameters sent along ($select, $top...): they count toward the length. */
  otherParams?: Query;
  /** Wrap each `in` clause with more conditions, e.g. `(c) => and(c, eq('typ_id', null))`. */
  combine?: (inClause: string) => string;
  /** Longest encoded URL allowed. Default 7,800. */
  budget?: number;
  /** Most values per chunk (e.g. 100 so one page holds every match). Default unlimited. */
  maxValues?: number;
}

/**
 * Splits `field in (...)` into filters whose request URL, encoded exactly as sent, stays within the budget.
 * Values are consumed lazily, so the list can be an iterator over a stream.
 */
export function* chunkIn(
  name: string,
  values: Iterable<FilterValue>,
  options: ChunkInOptions,
): Generator<string> {
  const budget = options.budget ?? URL_BUDGET;
  const maxValues = options.maxValues ?? Number.POSITIVE_INFINITY;
  const combine = options.combine ?? ((c: string) => c);
  const measure = (filter: string): number =>
    options.baseUrl.length + encodeQuery({ ...options.otherParams, $filter: filter }).length;
  const fieldText = field(name, options.culture);
  // Encoding works character by character, so a clause's encoded length is the empty clause's plus each
  // literal's and each separator's: measured once per value, not per chunk.
  const emptyLength = measure(combine(`${fieldText} in ()`));
  const sepLength = encodeURIComponent(',').length;
  let chunk: string[] = [];
  let length = emptyLength;
  for (const value of values) {
    const lit = literal(value);
    const litLength = encodeURIComponent(lit).length;
    if (emptyLength + litLength > budget) {
      throw new CatalogIoError(
        'API_URL_TOO_LONG',
        `One value alone makes the request URL longer than ${budget} characters: ${lit.slice(0, 80)}…`,
      );
    }
    const added = (chunk.length > 0 ? sepLength : 0) + litLength;
    if (chunk.length > 0 && (length + added > budget || chunk.length >= maxValues)) {
      yield combine(`${fieldText} in (${chunk.join(',')})`);
      chunk = [];
      length = emptyLength;
    }
    length += (chunk.length > 0 ? sepLength : 0) + litLength;
    chunk.push(lit);
  }
  if (chunk.length > 0) yield combine(`${fieldText} in (${chunk.join(',')})`);
}

function invalid(message: string): CatalogIoError {
  return new CatalogIoError('CONFIG_INVALID', `Cannot build the filter: ${message}`);
}
