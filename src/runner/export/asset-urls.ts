// `--asset-urls`: image and file cells carry the DAM's `originalUrl` instead of the bare name, so a
// workbook imported into another tenant registers each asset there (the import registers a URL once,
// and into the tenant it came from it finds the name already there: no write). Looked up per page,
// 100 names a request, through a bounded cache; a name whose URL ends in another file name (its
// content was replaced from another URL) stays a name, since the import would register it under
// that other name.

import type { AssetKind, DamClient } from '../../api/dam.js';
import { takeOldest } from '../../bounded-map.js';
import { safeReference } from '../import/assets.js';

/** Most name -> URL pairs kept per kind; the oldest are forgotten first. */
const CACHE_LIMIT = 20_000;

export class AssetUrls {
  private readonly urls = new Map<string, string | null>();
  /** Names kept as names (no DAM record, or a URL of another file name). */
  readonly keptAsNames = new Set<string>();

  constructor(private readonly dam: DamClient) {}

  /** Looks up the names not in the cache. */
  async load(kind: AssetKind, names: Iterable<string>): Promise<void> {
    const missing = new Set<string>();
    for (const name of names) if (name !== '' && !this.urls.has(`${kind}:${name}`)) missing.add(name);
    if (missing.size === 0) return;
    const found = new Map<string, string>();
    for await (const record of this.dam.existing<{ reference: string; originalUrl?: string }>(
      kind,
      missing,
    )) {
      if (typeof record.originalUrl === 'string' && record.originalUrl !== '')
        found.set(record.reference, record.originalUrl);
    }
    for (const name of missing) {
      const url = found.get(name);
      const usable = url && safeReference(url) === name ? url : null;
      if (usable === null && this.keptAsNames.size < 100) this.keptAsNames.add(name);
      this.urls.set(`${kind}:${name}`, usable);
      if (this.urls.size > CACHE_LIMIT) takeOldest(this.urls);
    }
  }

  /** The URL of a loaded name, or the name itself when it has none usable. */
  url(kind: AssetKind, name: string): string {
    return this.urls.get(`${kind}:${name}`) ?? name;
  }
}

/** The names an API value of an asset field holds (one, several, or per culture). */
export function assetNames(value: unknown): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value)) return value.flatMap(assetNames);
  return [];
}
