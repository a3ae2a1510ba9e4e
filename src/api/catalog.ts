// The Catalog API client: small typed methods over ServiceHttp. Paths are raw OData paths below the
// catalog URL (`/Products`, `/Products(12)`, `/CustomEntities('Store Locations')`); encoding, the key,
// retries, the rate limit and error shapes are handled below this layer.
import { badResponse, header } from './errors.js';
import { type ChunkInOptions, chunkIn, type FilterValue } from './filter.js';
import { items, type PageOptions, pages } from './paging.js';
import type { ServiceHttp } from './service-http.js';
import { customEntityPath, type Query } from './url.js';

export interface ReadOptions {
  query?: Query;
  /** Content in this culture (Accept-Language). */
  culture?: string;
}

export interface WriteOptions {
  /** The culture plain-string values of multilingual fields are written in. */
  culture?: string;
}

export interface Created {
  /** The new record's id, from the Location header: a number when numeric. */
  id: number | string;
  /** The Location header as sent. */
  location: string;
}

/** A single-entity answer: the record under `value`, plus hypermedia links. */
export interface EntityEnvelope<T> {
  value: T;
  '@readLink'?: string;
  '@editLink'?: string;
  '@etag'?: string;
}

/** The JSON Schema envelope of a `$metadata` answer. */
export interface MetadataDocument {
  readLink?: { uri?: string };
  value: Record<string, unknown>;
}

export type MetadataTarget =
  | 'catalog'
  | 'Products'
  | 'Variants'
  | 'Categories'
  | 'AttributeSets'
  | 'CustomEntities'
  | { custom: string };

export interface ChangelogOptions {
  /** `$filter` on `id`, `item_id`, `modified_at`, `author_type`, `author_id`, `attribute_id`. */
  filter?: string;
  /** One of `id`, `item_id`, `modified_at`, with `asc`/`desc`. Default `id asc` (stable while paging). */
  orderby?: string;
  pageSize?: number;
}

export class CatalogClient {
  constructor(readonly http: ServiceHttp) {}

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The full encoded URL of a request (what chunkIn measures). */
  url(path: string, query?: Query): string {
    return this.http.url(path, query);
  }

  /** GET any path; resolves to the parsed body. */
  async get<T = unknown>(path: string, options: ReadOptions = {}): Promise<T> {
    const res = await this.http.request<T>({ method: 'GET', path, ...options });
    return res.body;
  }

  /** GET a single entity and unwrap its `value`. */
  async getEntity<T = Record<string, unknown>>(path: string, options: ReadOptions = {}): Promise<T> {
    const body = await this.get<EntityEnvelope<T> | undefined>(path, options);
    if (!body || typeof body !== 'object' || !('value' in body)) {
      throw badResponse(
        { service: this.http.service, method: 'GET', path },
        200,
        'answered without { value }',
      );
    }
    return body.value;
  }

  /** Every record of a collection, page by page (token paging by default; `mode: 'offset'` with `$orderby`). */
  list<T = Record<string, unknown>>(path: string, options: PageOptions = {}): AsyncGenerator<T> {
    return items<T>(this.http, path, options);
  }

  pages<T = Record<string, unknown>>(path: string, options: PageOptions = {}) {
    return pages<T>(this.http, path, options);
  }

  /**
   * Records whose `field` is one of `values`, looked up with `field in (...)` split so every URL stays
   * under the length limit. `extraFilter` is ANDed to each chunk.
   */
  async *listIn<T = Record<string, unknown>>(
    path: string,
    field: string,
    values: Iterable<FilterValue>,
    options: PageOptions & {
      extraFilter?: string;
      budget?: number;
      maxValues?: number;
      fieldCulture?: string;
    } = {},
  ): AsyncGenerator<T> {
    const otherParams: Query = { ...(options.query ?? {}), $top: Math.min(100, options.pageSize ?? 100) };
    const chunkOptions: ChunkInOptions = {
      baseUrl: this.url(path),
      otherParams,
      ...(options.extraFilter ? { combine: (c: string) => `(${c}) and (${options.extraFilter})` } : {}),
      ...(options.budget !== undefined ? { budget: options.budget } : {}),
      // At most one page of values per chunk: matches on a unique field then fit in one page, so no
      // continuation link (whose length the service decides) is ever needed.
      maxValues: options.maxValues ?? Number(otherParams.$top),
      ...(options.fieldCulture !== undefined ? { culture: options.fieldCulture } : {}),
    };
    for (const filter of chunkIn(field, values, chunkOptions)) {
      yield* items<T>(this.http, path, { ...options, query: { ...(options.query ?? {}), $filter: filter } });
    }
  }

  /** POST a new record; the id comes from the Location header (the body may be empty). */
  async create(
    collectionPath: string,
    body: Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<Created> {
    const res = await this.http.request({ method: 'POST', path: collectionPath, body, ...options });
    const location = header(res.headers, 'location');
    const id = location ? idFromLocation(location) : undefined;
    if (!location || id === undefined) {
      throw badResponse(
        { service: this.http.service, method: 'POST', path: collectionPath },
        res.status,
        location
          ? `answered with a Location the id cannot be read from: ${location}`
          : 'answered without a Location header',
      );
    }
    return { id, location };
  }

  /** PATCH only the given fields (204, no body). */
  async patch(recordPath: string, body: Record<string, unknown>, options: WriteOptions = {}): Promise<void> {
    await this.http.request({ method: 'PATCH', path: recordPath, body, ...options });
  }

  /** PUT a whole document (layouts). */
  async put(path: string, body: unknown): Promise<void> {
    await this.http.request({ method: 'PUT', path, body });
  }

  /** DELETE a record. `alreadyGone`: an earlier attempt failed with an unknown outcome and the record is gone. */
  async delete(recordPath: string): Promise<{ alreadyGone: boolean }> {
    const res = await this.http.request({ method: 'DELETE', path: recordPath });
    return { alreadyGone: res.alreadyGone === true };
  }

  /** A `$metadata` document: the whole catalog, one resource, the custom-entity list or one custom entity. */
  async metadata(target: MetadataTarget = 'catalog'): Promise<MetadataDocument> {
    const path = metadataPath(target);
    const body = await this.get<MetadataDocument | undefined>(path);
    if (!body || typeof body !== 'object' || !body.value || typeof body.value !== 'object') {
      throw badResponse(
        { service: this.http.service, method: 'GET', path },
        200,
        'answered without a JSON Schema under value',
      );
    }
    return body;
  }

  /** Changelog entries of a collection (`/Products`) or one record (`/Products(12)`), oldest first by default. */
  changelog<T = Record<string, unknown>>(path: string, options: ChangelogOptions = {}): AsyncGenerator<T> {
    // Changelogs ignore $skipToken: page by $skip over a stable order.
    return items<T>(this.http, changelogPath(path), {
      mode: 'offset',
      query: {
        $orderby: options.orderby ?? 'id asc',
        ...(options.filter ? { $filter: options.filter } : {}),
      },
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    });
  }
}

export function metadataPath(target: MetadataTarget): string {
  if (target === 'catalog') return '/$metadata';
  if (typeof target === 'object') return `${customEntityPath(target.custom)}/$metadata`;
  return `/${target}/$metadata`;
}

/** `/Products(12)` or, for a custom entity collection, `/CustomEntities('X')/item(12)`. */
export function recordPath(collectionPath: string, id: number | string): string {
  const key = typeof id === 'number' || /^\d+$/.test(id) ? String(id) : `'${id.replaceAll("'", "''")}'`;
  return collectionPath.startsWith('/CustomEntities(')
    ? `${collectionPath}/item(${key})`
    : `${collectionPath}(${key})`;
}

/** `/Products/Changelog`, `/Products(12)/Changelog`, `/CustomEntities('X')/Changelog(12)` for one custom item. */
export function changelogPath(path: string): string {
  const item = /^(\/CustomEntities\('(?:[^']|'')*'\))\/item\(([^)]*)\)$/.exec(path);
  if (item) return `${item[1]}/Changelog(${item[2]})`;
  return `${path}/Changelog`;
}

/** The key in the last `(...)` of a Location: `.../Products(123)` -> 123, `.../item('a b')` -> 'a b'. */
export function idFromLocation(location: string): number | string | undefined {
  let path = location;
  try {
    path = decodeURIComponent(new URL(location, 'http://x').pathname);
  } catch {
    // keep as given
  }
  const m = /\(([^()]*)\)\/?$/.exec(path);
  if (!m) return undefined;
  const raw = m[1]!.trim();
  if (/^-?\d+$/.test(raw)) {
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : raw;
  }
  const quoted = /^'(.*)'$/.exec(raw);
  if (quoted) return quoted[1]!.replaceAll("''", "'");
  return raw === '' ? undefined : raw;
}
