// Reading collections page by page, as async iterables: nothing beyond one page is held.
//   token  : the service's `@nextLink` drives paging (catalog `$skipToken`; fastest, no `$orderby`).
//   offset : `$skip` raised by `$top` each page, with `$orderby` (catalog offset paging).
//   skip   : follow `@nextLink` when the deployment sends one, else raise `$skip` (DAM collections),
//            stopping when a page holds fewer than `$top` items or `@count` is reached.
import { badResponse } from './errors.js';
import type { ServiceHttp, ServiceResponse } from './service-http.js';
import type { Query } from './url.js';

/** The most items a page may hold on either service. */
export const MAX_PAGE_SIZE = 100;

export interface Collection<T> {
  value?: T[] | null;
  '@nextLink'?: string;
  '@count'?: number;
}

export type PagingMode = 'token' | 'offset' | 'skip';

export interface PageOptions {
  query?: Query;
  culture?: string;
  /** Items per page, at most 100. Default 100. */
  pageSize?: number;
  mode?: PagingMode;
}

export interface Page<T> {
  items: T[];
  /** `@count` when the service sent it. */
  count?: number;
}

export async function* pages<T>(
  http: ServiceHttp,
  path: string,
  options: PageOptions = {},
): AsyncGenerator<Page<T>> {
  const top = Math.max(1, Math.min(MAX_PAGE_SIZE, options.pageSize ?? MAX_PAGE_SIZE));
  const mode = options.mode ?? 'token';
  const baseQuery: Query = { ...(options.query ?? {}), $top: top };
  const culture = options.culture;
  let skip = Number(options.query?.$skip ?? 0);
  let seen = 0;
  let res = await http.request<Collection<T>>({
    method: 'GET',
    path,
    query: { ...baseQuery, ...(mode === 'token' ? {} : { $skip: skip || undefined }) },
    ...(culture ? { culture } : {}),
  });
  const followed = new Set<string>();
  for (;;) {
    const body = collectionOf<T>(http, path, res);
    const items = body.value ?? [];
    const count = typeof body['@count'] === 'number' ? body['@count'] : undefined;
    seen += items.length;
    if (items.length > 0) yield count === undefined ? { items } : { items, count };
    const next = body['@nextLink'];
    if (mode !== 'offset' && next) {
      if (followed.has(next))
        throw badResponse(
          { service: http.service, method: 'GET', path },
          res.status,
          `repeated the same @nextLink: ${next}`,
        );
      followed.add(next);
      if (items.length === 0 && mode === 'skip') return;
      res = await http.follow<Collection<T>>(next, culture);
      continue;
    }
    if (mode === 'token') return;
    if (items.length < top || (count !== undefined && seen >= count)) return;
    skip += items.length;
    res = await http.request<Collection<T>>({
      method: 'GET',
      path,
      query: { ...baseQuery, $skip: skip },
      ...(culture ? { culture } : {}),
    });
  }
}

/** Every item of a collection, once, in the service's order. */
export async function* items<T>(
  http: ServiceHttp,
  path: string,
  options: PageOptions = {},
): AsyncGenerator<T> {
  for await (const page of pages<T>(http, path, options)) yield* page.items;
}

function collectionOf<T>(
  http: ServiceHttp,
  path: string,
  res: ServiceResponse<Collection<T>>,
): Collection<T> {
  const body = res.body;
  if (
    !body ||
    typeof body !== 'object' ||
    (body.value !== undefined && body.value !== null && !Array.isArray(body.value))
  ) {
    throw badResponse(
      { service: http.service, method: 'GET', path },
      res.status,
      'answered without a collection envelope ({ value: [...] })',
    );
  }
  return body;
}
