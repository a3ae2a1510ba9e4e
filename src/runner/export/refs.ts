// Ids -> refs for reference columns (`cat_ids` -> `cat_refs`) through a bounded cache: each page asks
// once, with `<id> in (...)`, for the ids it has not seen yet. Categories are few, so after the first
// pages nearly every id is known and the lookups stop.

import type { CatalogClient } from '../../api/catalog.js';
import { chunkIn, type FilterValue } from '../../api/filter.js';
import { takeOldest } from '../../bounded-map.js';
import type { EntityModel } from '../../schema/model.js';

/** Most id -> ref pairs kept per referenced entity; the oldest are forgotten first. */
export const REF_CACHE_SIZE = 10_000;

export class RefCache {
  /** id -> ref; null: looked up and not found (a dangling link). Insertion order = age. */
  private readonly refs = new Map<string, string | null>();

  constructor(
    private readonly catalog: CatalogClient,
    private readonly target: EntityModel,
    private readonly culture: string,
    private readonly limit = REF_CACHE_SIZE,
  ) {}

  /** Looks up, in as few requests as the URL limit allows, the ids of `ids` not in the cache. */
  async load(ids: Iterable<unknown>): Promise<void> {
    const missing = new Set<FilterValue>();
    for (const id of ids) {
      if (id === null || id === undefined || this.refs.has(key(id))) continue;
      missing.add(id as FilterValue);
    }
    if (missing.size === 0) return;
    const { idField, refField, path } = this.target;
    const query = { $select: `${idField},${refField}`, $top: 100 };
    const found = new Map<string, string>();
    for (const filter of chunkIn(idField, missing, {
      baseUrl: this.catalog.url(path),
      otherParams: query,
      maxValues: 100,
    })) {
      for await (const page of this.catalog.pages<Record<string, unknown>>(path, {
        culture: this.culture,
        query: { $select: query.$select, $filter: filter },
      })) {
        for (const item of page.items) found.set(key(item[idField]), String(item[refField] ?? ''));
      }
    }
    for (const id of missing) this.remember(key(id), found.get(key(id)) ?? null);
  }

  /** The ref of a loaded id; undefined when it was not found. */
  ref(id: unknown): string | undefined {
    return this.refs.get(key(id)) ?? undefined;
  }

  private remember(id: string, ref: string | null): void {
    this.refs.set(id, ref);
    if (this.refs.size > this.limit) takeOldest(this.refs);
  }
}

function key(id: unknown): string {
  return String(id);
}
