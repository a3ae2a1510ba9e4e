// GET /images and GET /files: $filter, $orderby (first expression honoured), $top, $skip through the
// sandbox's OData engine, with the DAM's envelope (`@count` always, links only when enabled).
import { json, type SandboxRequest, type SandboxResponse, validationFailure } from '../http.js';
import {
  compareForOrder,
  evaluateFilter,
  parseFilter,
  parseIntOption,
  parseOrderBy,
} from '../odata/index.js';
import { ODataError, type QueryField, type QuerySchema } from '../odata/types.js';

/** The spec's page size: `$top` 1..100, and 100 when absent. */
const MAX_TOP = 100;

export function damSchema(fields: QueryField[]): QuerySchema {
  // The DAM matches field names case-insensitively: the map is keyed by lower-cased name.
  return {
    fields: new Map(fields.map((f) => [f.name.toLowerCase(), f])),
    languages: [],
    caseInsensitive: true,
  };
}

/** GET /images: the spec's queryable fields. */
export const IMAGE_QUERY = damSchema([
  { name: 'id', type: 'integer' },
  { name: 'reference', type: 'string' },
  { name: 'numLinks', type: 'integer' },
  { name: 'status', type: 'string' },
  { name: 'modifiedOn', type: 'date-time' },
  { name: 'fileType', type: 'string' },
  { name: 'createdOn', type: 'date-time' },
]);

/** GET /files: the sandbox's choice (the spec says "not shown"). */
export const FILE_QUERY = damSchema([
  { name: 'reference', type: 'string' },
  { name: 'fileType', type: 'string' },
  { name: 'sizeInBytes', type: 'integer' },
  { name: 'modifiedOn', type: 'date-time' },
  { name: 'createdOn', type: 'date-time' },
]);

export interface ListSource<R> {
  records: Iterable<R>;
  schema: QuerySchema;
  /** Shows a record the way clients see it; $filter and $orderby read these shown fields. */
  show: (record: R) => Record<string, unknown>;
  /** Absolute URL of the collection (for the optional links). */
  collectionUrl: string;
  links: boolean;
}

export function listCollection<R>(req: SandboxRequest, source: ListSource<R>): SandboxResponse {
  try {
    const filterText = req.query.get('$filter');
    const orderText = req.query.get('$orderby');
    const filter =
      filterText !== null && filterText.trim() !== '' ? parseFilter(filterText, source.schema) : undefined;
    const order =
      orderText !== null && orderText.trim() !== ''
        ? parseOrderBy(orderText, source.schema, { firstOnly: true })
        : undefined;
    const top = parseIntOption('$top', req.query.get('$top'), { min: 1, max: MAX_TOP }) ?? MAX_TOP;
    const skip = parseIntOption('$skip', req.query.get('$skip'), { min: 0 }) ?? 0;

    const get = (record: Record<string, unknown>, field: string) => record[field];
    const matches: Array<Record<string, unknown>> = [];
    for (const record of source.records) {
      const shown = source.show(record);
      if (!filter || evaluateFilter(filter, shown, get)) matches.push(shown);
    }
    if (order) {
      const sign = order.descending ? -1 : 1;
      // Array.prototype.sort is stable: ties keep creation order.
      matches.sort((a, b) => sign * compareForOrder(a[order.field], b[order.field]));
    }
    const page = matches.slice(skip, skip + top);
    const body: Record<string, unknown> = { value: page, '@count': matches.length };
    if (source.links) {
      const query = req.query.toString();
      body['@readLink'] = query ? `${source.collectionUrl}?${query}` : source.collectionUrl;
      if (skip + top < matches.length) {
        const next = new URLSearchParams(req.query);
        next.set('$skip', String(skip + top));
        next.set('$top', String(top));
        body['@nextLink'] = `${source.collectionUrl}?${next.toString()}`;
      }
    }
    return json(200, body);
  } catch (err) {
    if (err instanceof ODataError)
      return validationFailure(err.parameter, err.propertyName, err.message, err.attemptedValue);
    throw err;
  }
}
