// Collection reads: OData options parsed by the engine, candidates narrowed through an index when
// the filter pins a key, ref or link field, then filtered, ordered, paged and presented. Unfiltered
// token paging reads the table's sorted id list directly, without copying it.
import { json, type SandboxResponse, validationFailure } from '../http.js';
import {
  compareForOrder,
  equalityValues,
  evaluateFilter,
  parseFilter,
  parseIntOption,
  parseOrderBy,
  parseSelect,
} from '../odata/index.js';
import { type FilterExpr, ODataError, type OrderBy, type QuerySchema } from '../odata/types.js';
import type { StoredRecord } from './model.js';
import { lowerBound, type Table } from './table.js';

export const MAX_PAGE_SIZE = 100;

/** What a collection read needs to know about one resource. */
export interface CollectionView {
  schema: QuerySchema;
  table: Table;
  /** Id field, always included in `$select`. */
  key: string;
  /** Embedded collections `$expand` accepts here. */
  expandable: readonly string[];
  /** A field's value for filtering and ordering; `culture` is the filter's `_<culture>` or the request's. */
  read(record: StoredRecord, field: string, culture: string): unknown;
  present(
    record: StoredRecord,
    culture: string,
    select: string[] | undefined,
    expand: string[],
  ): Record<string, unknown>;
  /** Legacy attribute sets: pages under `$skipToken` or `$top` hold this many items, and `@nextLink` uses `$skip`. */
  smallPages?: number;
}

export interface CollectionTarget {
  /** Absolute URL of the collection without query, e.g. `http://h:p/catalog/Categories(3)/Products`. */
  url: string;
  /** `@context` value. */
  context: string;
  query: URLSearchParams;
  culture: string;
  /** Restricts the collection (embedded paths); sorted ids. */
  scope?: readonly number[];
}

/** An ODataError as the catalog's 400 body. */
export function odataFailure(err: ODataError): SandboxResponse {
  return validationFailure(err.parameter, err.propertyName, err.message, err.attemptedValue);
}

export function parseExpand(text: string | null, expandable: readonly string[]): string[] {
  if (text === null || text.trim() === '') return [];
  const names = text.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!expandable.includes(name)) {
      const allowed = expandable.length
        ? `one of ${expandable.join(', ')}`
        : 'nothing (this resource has no embedded collections)';
      throw new ODataError(
        '$expand',
        `Cannot expand '${name}': only embedded collections can be expanded here, ${allowed}`,
        name,
        text,
      );
    }
  }
  return names;
}

export function parseSelectOption(text: string | null, view: CollectionView): string[] | undefined {
  if (text === null || text.trim() === '') return undefined;
  const names = parseSelect(text, view.schema);
  return names.includes(view.key) ? names : [view.key, ...names];
}

function encodeToken(lastId: number): string {
  return Buffer.from(JSON.stringify({ after: lastId })).toString('base64url');
}

function decodeToken(token: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'number' && Number.isInteger(parsed.after)) return parsed.after;
  } catch {
    // fall through to the error below
  }
  throw new ODataError(
    '$skipToken',
    `The continuation token '${token}' is not valid: use the @nextLink of the previous page`,
    '$skipToken',
    token,
  );
}

/** Ids the filter can only match, through an index on the key, the ref or a link field. */
function indexedCandidates(view: CollectionView, filter: FilterExpr | undefined): number[] | undefined {
  if (!filter) return undefined;
  let best: number[] | undefined;
  for (const field of view.schema.fields.keys()) {
    if (!view.table.isIndexed(field)) continue;
    const values = equalityValues(filter, field);
    if (!values) continue;
    const ids = view.table.idsWhere(
      field,
      values.map((v) => (typeof v === 'bigint' ? Number(v) : v)),
    );
    if (!best || ids.length < best.length) best = ids;
  }
  return best;
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(b);
  return a.filter((id) => set.has(id));
}

export function runCollectionQuery(view: CollectionView, target: CollectionTarget): SandboxResponse {
  try {
    return collection(view, target);
  } catch (err) {
    if (err instanceof ODataError) return odataFailure(err);
    throw err;
  }
}

function collection(view: CollectionView, target: CollectionTarget): SandboxResponse {
  const q = target.query;
  const filterText = q.get('$filter');
  const filter =
    filterText !== null && filterText.trim() !== '' ? parseFilter(filterText, view.schema) : undefined;
  const orderText = q.get('$orderby');
  const orderBy: OrderBy | undefined =
    orderText !== null && orderText.trim() !== ''
      ? parseOrderBy(orderText, view.schema, { singleOnly: true })
      : undefined;
  const token = q.get('$skipToken');
  if (token !== null && orderBy)
    throw new ODataError(
      '$skipToken',
      '$skipToken cannot be combined with $orderby: page with $skip and $top instead',
      '$skipToken',
      token,
    );
  let top = parseIntOption('$top', q.get('$top'), { min: 0 });
  const skip = parseIntOption('$skip', q.get('$skip'), { min: 0 }) ?? 0;
  const select = parseSelectOption(q.get('$select'), view);
  const expand = parseExpand(q.get('$expand'), view.expandable);
  const after = token !== null ? decodeToken(token) : undefined;

  let pageSize = Math.min(top ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  if (view.smallPages !== undefined && (token !== null || top !== undefined)) {
    pageSize = Math.min(pageSize, view.smallPages);
    top = pageSize;
  }

  // Candidates in id order: the scope, an index hit, or the whole table (not copied).
  let candidates: readonly number[] = target.scope ?? view.table.allIds();
  const indexed = indexedCandidates(view, filter);
  if (indexed) candidates = target.scope ? intersect(indexed, target.scope) : indexed;

  let matches: readonly number[] = candidates;
  if (filter) {
    const get = (r: StoredRecord, field: string, culture: string | undefined) =>
      view.read(r, field, culture ?? target.culture);
    matches = candidates.filter((id) => {
      const r = view.table.get(id);
      return r !== undefined && evaluateFilter(filter, r, get);
    });
  }

  let start: number;
  let ordered: readonly number[] = matches;
  if (orderBy) {
    const keyed = matches.map((id) => ({
      id,
      v: view.read(view.table.get(id)!, orderBy.field, orderBy.culture ?? target.culture),
    }));
    const direction = orderBy.descending ? -1 : 1;
    keyed.sort(orderComparator(keyed, direction));
    ordered = keyed.map((k) => k.id);
    start = skip;
  } else {
    start = (after !== undefined ? lowerBound(matches, after + 1) : 0) + skip;
  }
  const pageIds = ordered.slice(start, start + pageSize);
  const end = start + pageIds.length;

  const body: Record<string, unknown> = {
    '@readLink': withQuery(target.url, q),
    '@context': target.context,
    '@count': matches.length,
    value: pageIds.map((id) => view.present(view.table.get(id)!, target.culture, select, expand)),
  };
  const hasNext = pageSize > 0 && end < ordered.length;
  let continuation: string | null = null;
  if (hasNext) {
    const next = new URLSearchParams(q);
    if (orderBy || view.smallPages !== undefined) {
      next.delete('$skipToken');
      next.set('$skip', String(end));
    } else {
      continuation = encodeToken(pageIds[pageIds.length - 1]!);
      next.delete('$skip');
      next.set('$skipToken', continuation);
    }
    body['@nextLink'] = withQuery(target.url, next);
  }
  if (target.scope) {
    // Collections scoped to a parent also carry the spec's pagination metadata.
    Object.assign(body, {
      Count: matches.length,
      Skip: start,
      Top: pageSize,
      HasNext: hasNext,
      ContinuationToken: continuation,
      Cultures: [target.culture],
    });
  }
  return json(200, body);
}

/** Sorts by value then id; plain numbers or strings (the common case) skip the generic comparison. */
function orderComparator(
  keyed: Array<{ id: number; v: unknown }>,
  direction: number,
): (a: { id: number; v: unknown }, b: { id: number; v: unknown }) => number {
  const kinds = new Set(keyed.map((k) => (k.v === null || k.v === undefined ? 'null' : typeof k.v)));
  kinds.delete('null');
  const kind = kinds.size === 1 ? [...kinds][0] : undefined;
  if (kind === 'number' || kind === 'string') {
    // Nulls first ascending, as compareForOrder does.
    return (a, b) => {
      const x = a.v as number | string | null | undefined;
      const y = b.v as number | string | null | undefined;
      const c = x == null ? (y == null ? 0 : -1) : y == null ? 1 : x < y ? -1 : x > y ? 1 : 0;
      return direction * c || a.id - b.id;
    };
  }
  return (a, b) => direction * compareForOrder(a.v, b.v) || a.id - b.id;
}

/** `url?query`, percent-encoded but keeping `$` and `,` readable (`?$top=2&$select=a,b`). */
export function withQuery(url: string, q: URLSearchParams): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%24/g, '$').replace(/%2C/g, ',');
  const parts: string[] = [];
  for (const [k, v] of q) parts.push(`${enc(k)}=${enc(v)}`);
  return parts.length ? `${url}?${parts.join('&')}` : url;
}
