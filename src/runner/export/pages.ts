// Reading an entity page by page in every language, in bounded memory. The API answers one culture per
// request, so each base-language page (token paging, `$top=100`) is followed by one read per other
// language of the same ids (`<id> in (...)`, only the multilingual fields), merged by id. Only the
// page at hand and the one being fetched next are held: never a whole-catalog map.
import type { CatalogClient } from '../../api/catalog.js';
import { and, chunkIn, type FilterValue } from '../../api/filter.js';
import { MAX_PAGE_SIZE } from '../../api/paging.js';
import type { TablePlan } from './columns.js';

export type ApiRecord = Record<string, unknown>;

/** One record with its other-language reads (culture -> the record as read in that culture). */
export interface MergedRecord {
  base: ApiRecord;
  cultures: Map<string, ApiRecord>;
}

export interface BasePage {
  items: ApiRecord[];
  /** `@count` of the whole read, when the service sent it. */
  count?: number;
}

/** Every record matching `filter`, in the base language, by token paging. */
export function allPages(
  catalog: CatalogClient,
  plan: TablePlan,
  culture: string,
  filter: string | undefined,
): AsyncIterable<BasePage> {
  return catalog.pages<ApiRecord>(plan.entity.path, {
    culture,
    query: { $select: plan.baseSelect.join(','), ...(filter ? { $filter: filter } : {}) },
  });
}

/** The records of the given ids (a changelog's), `in (...)` lists of at most one page each. */
export async function* pagesOfIds(
  catalog: CatalogClient,
  plan: TablePlan,
  culture: string,
  ids: readonly FilterValue[],
  filter: string | undefined,
): AsyncGenerator<BasePage> {
  const { path, idField } = plan.entity;
  const $select = plan.baseSelect.join(',');
  for (const chunk of chunkIn(idField, ids, {
    baseUrl: catalog.url(path),
    otherParams: { $select, $top: MAX_PAGE_SIZE },
    maxValues: MAX_PAGE_SIZE,
    ...(filter ? { combine: (c: string) => and(c, filter) } : {}),
  })) {
    for await (const page of catalog.pages<ApiRecord>(path, {
      culture,
      query: { $select, $filter: chunk },
    })) {
      yield { items: page.items, count: ids.length };
    }
  }
}

/** Reads the page's records in each other language (in parallel) and pairs them with the base records. */
export async function mergeCultures(
  catalog: CatalogClient,
  plan: TablePlan,
  page: BasePage,
): Promise<MergedRecord[]> {
  const { path, idField } = plan.entity;
  const ids = page.items.map((item) => item[idField] as FilterValue).filter((id) => id != null);
  const reads = await Promise.all(
    [...plan.cultureSelect].map(async ([culture, fields]) => {
      const byId = new Map<string, ApiRecord>();
      if (ids.length === 0) return [culture, byId] as const;
      for await (const item of catalog.listIn<ApiRecord>(path, idField, ids, {
        culture,
        query: { $select: fields.join(',') },
        maxValues: MAX_PAGE_SIZE,
      })) {
        byId.set(String(item[idField]), item);
      }
      return [culture, byId] as const;
    }),
  );
  return page.items.map((base) => {
    const cultures = new Map<string, ApiRecord>();
    const id = String(base[idField]);
    for (const [culture, byId] of reads) {
      const record = byId.get(id);
      if (record) cultures.set(culture, record);
    }
    return { base, cultures };
  });
}

/**
 * Keeps one item of `source` requested ahead of the consumer, so the next page is on the wire while
 * this one is read in the other languages and written.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = iterator.next();
      // A failure of the request ahead surfaces when it is awaited, not as an unhandled rejection.
      next.catch(() => undefined);
      yield current.value;
    }
  } finally {
    await iterator.return?.();
  }
}
