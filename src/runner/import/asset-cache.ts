// What the registrar remembers between runs, in one cache file: URL -> DAM reference of what earlier
// runs registered, URLs the DAM could not take (not tried again for `failedTtlMs`), and where the image
// library stood when the file was saved (asset-mark.ts). A run that uses the cache's images first
// checks that mark (one request): when it holds, the cache vouches for its images (the import state
// may skip the rows that name them, known-state.ts); when an image was replaced since, it does not;
// when one was deleted, the cache's images are forgotten and looked up again.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AssetKind, DamClient } from '../../api/dam.js';
import { setBounded } from '../../bounded-map.js';
import { replaceFileSync } from '../../replace-file.js';
import { redactText, redactUrl } from '../../secrets.js';
import { type DamMark, isMark, markState, takeMark } from './asset-mark.js';

/** A URL the DAM could not take, remembered so the next runs do not try it again too soon. */
export interface FailedEntry {
  kind: AssetKind;
  message: string;
  failedAt: string;
}

interface CacheEntry {
  reference: string;
  kind: AssetKind;
  registeredAt: string;
}

export const FAILED_TTL_MS = 7 * 24 * 3600_000;
/** Failed URLs remembered at most (the oldest fall out first). */
export const FAILED_LIMIT = 20_000;
/** Enough for a very large feed's distinct URLs; older entries fall out first. */
export const CACHE_LIMIT = 200_000;

export interface AssetCacheOptions {
  /** The cache file; undefined: nothing is remembered between runs. */
  file?: string;
  /** Ignore what the cache says (it is still updated). */
  refresh?: boolean;
  /** --plan: nothing is remembered, the file is not written. */
  plan?: boolean;
  /** How long a URL that failed is not tried again. Default 7 days. */
  failedTtlMs?: number;
}

export class AssetCache {
  private readonly cache = new Map<string, CacheEntry>();
  /** `kind:reference` -> the stored key of the URL an earlier run registered that name from. */
  private readonly owners = new Map<string, string>();
  private readonly failedUrls = new Map<string, FailedEntry>();
  /** The image library's mark the cache was saved with (none: the cache's images are not vouched for). */
  private mark: DamMark | undefined;
  /** The mark check, once per run. */
  private checking: Promise<void> | undefined;
  /** The check passed (or the cache's images were forgotten): what the cache holds may be vouched for. */
  private vouching = false;
  /** The DAM did not answer the check: no mark is saved (the next run forgets the cache's images). */
  private unchecked = false;
  /** The check found the mark as it was. */
  private markHeld = false;
  /** An image entered the cache this run: it is newer than the mark, a new one is taken on save. */
  private imagesChanged = false;

  constructor(
    private readonly dam: DamClient,
    private readonly options: AssetCacheOptions,
  ) {
    if (options.file) this.load(options.file);
  }

  /** The reference an earlier run registered this URL as (none with --refresh-assets). */
  cached(kind: AssetKind, url: string): string | undefined {
    if (this.options.refresh) return undefined;
    const entry = this.cache.get(storedKey(url));
    return entry?.kind === kind ? entry.reference : undefined;
  }

  /**
   * The URL an earlier run registered this name from, when it is another URL than `url` (none with
   * --refresh-assets): the DAM keys assets by file name, so `url` would only be given that URL's file.
   * A URL kept by its hash (it carries a credential) is said as such.
   */
  registeredFromElsewhere(kind: AssetKind, url: string, reference: string): string | undefined {
    if (this.options.refresh) return undefined;
    const owner = this.owners.get(`${kind}:${reference}`);
    if (owner === undefined || owner === storedKey(url)) return undefined;
    const entry = this.cache.get(owner);
    if (entry?.kind !== kind || entry.reference !== reference) return undefined;
    return owner.startsWith('#') ? 'another URL (one with a credential, not shown)' : owner;
  }

  /**
   * Checks the cache's images against the DAM, once per run (one request when they are as they were,
   * two when not; none when the cache holds no image). After a deletion, or without a mark, they are
   * forgotten: this run looks them up again, and registers again those that are gone.
   */
  check(): Promise<void> {
    this.checking ??= (async () => {
      if (this.options.plan || !this.options.file || this.options.refresh) return;
      let state: 'holds' | 'modified' | 'deleted' = 'deleted';
      if (!this.holdsImages()) state = 'holds';
      else if (this.mark) {
        try {
          state = await markState(this.dam, this.mark);
        } catch {
          // The DAM did not answer: nothing is vouched for, the cache serves as before.
          this.unchecked = true;
          return;
        }
      }
      if (state === 'deleted') {
        for (const [url, entry] of this.cache) if (entry.kind === 'image') this.cache.delete(url);
        for (const name of this.owners.keys()) if (name.startsWith('image:')) this.owners.delete(name);
        this.mark = undefined;
      }
      this.vouching = state !== 'modified';
      this.markHeld = state === 'holds';
    })();
    return this.checking;
  }

  /**
   * The reference an image URL resolved to, when the checked cache vouches for it: a looked-up run
   * would find it there too and send nothing for it (status `cached`). Call after check().
   */
  vouchedReference(kind: AssetKind, url: string): string | undefined {
    if (kind !== 'image' || !this.vouching || this.options.refresh) return undefined;
    const entry = this.cache.get(storedKey(url));
    return entry?.kind === 'image' ? entry.reference : undefined;
  }

  /** A URL now known to be registered as `reference`. */
  remember(url: string, kind: AssetKind, reference: string): void {
    const key = storedKey(url);
    this.failedUrls.delete(key);
    if (kind === 'image' && this.cache.get(key)?.reference !== reference) this.imagesChanged = true;
    setBounded(this.cache, key, { reference, kind, registeredAt: new Date().toISOString() }, CACHE_LIMIT);
    setBounded(this.owners, `${kind}:${reference}`, key, CACHE_LIMIT);
  }

  /** A URL the DAM could not take because of the URL itself: the next runs skip it for a while. */
  rememberFailure(url: string, kind: AssetKind, message: string): void {
    if (this.options.plan) return;
    setBounded(
      this.failedUrls,
      storedKey(url),
      { kind, message: redactText(message), failedAt: new Date().toISOString() },
      FAILED_LIMIT,
    );
  }

  /** A failure of an earlier run still within its time to live (not with --refresh-assets). */
  failure(url: string, kind: AssetKind): FailedEntry | undefined {
    if (this.options.refresh) return undefined;
    const entry = this.failedUrls.get(storedKey(url));
    if (!entry || entry.kind !== kind) return undefined;
    if (Date.now() - Date.parse(entry.failedAt) < this.failedTtl()) return entry;
    return undefined;
  }

  /** Until when a remembered failure keeps its URL from being tried (ISO). */
  retryAfter(entry: FailedEntry): string {
    return new Date(Date.parse(entry.failedAt) + this.failedTtl()).toISOString();
  }

  /**
   * Writes the cache file atomically, with a new mark of the image library when this run added images
   * to it (one request) or found the old mark broken. The mark is taken after every registration of
   * the run, so it covers them; without one the next run looks the cache's images up.
   */
  async save(imagesRegistered: number): Promise<void> {
    const file = this.options.file;
    if (!file || this.options.plan) return;
    const hasImages = this.holdsImages();
    if (!hasImages) this.mark = undefined;
    else if (!this.checking) {
      // No image of the cache was used this run: the mark it was saved with still says what it said.
    } else if (this.unchecked) this.mark = undefined;
    else if (this.imagesChanged || imagesRegistered > 0 || !this.markHeld) {
      try {
        // No image of the old mark may have gone during this run, or the new mark would hide it.
        const kept = !this.mark || (await markState(this.dam, this.mark)) !== 'deleted';
        this.mark = kept ? await takeMark(this.dam) : undefined;
      } catch {
        this.mark = undefined;
      }
    }
    replaceFileSync(
      file,
      JSON.stringify({
        version: 1,
        entries: Object.fromEntries(this.cache),
        failed: Object.fromEntries(this.failedUrls),
        ...(this.mark && { imageMark: this.mark }),
      }),
    );
  }

  private failedTtl(): number {
    return this.options.failedTtlMs ?? FAILED_TTL_MS;
  }

  private holdsImages(): boolean {
    for (const entry of this.cache.values()) if (entry.kind === 'image') return true;
    return false;
  }

  private load(file: string): void {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as {
        entries?: Record<string, CacheEntry>;
        failed?: Record<string, FailedEntry>;
        imageMark?: unknown;
      };
      if (isMark(parsed.imageMark)) this.mark = parsed.imageMark;
      for (const [url, entry] of Object.entries(parsed.entries ?? {})) {
        if (entry && typeof entry.reference === 'string') {
          setBounded(this.cache, url, entry, CACHE_LIMIT);
          setBounded(this.owners, `${entry.kind}:${entry.reference}`, url, CACHE_LIMIT);
        }
      }
      const now = Date.now();
      for (const [url, entry] of Object.entries(parsed.failed ?? {})) {
        const at = Date.parse(entry?.failedAt ?? '');
        // Expired entries are dropped as the file is read: it never grows past what is still due.
        if (typeof entry?.message === 'string' && now - at < this.failedTtl())
          setBounded(this.failedUrls, url, entry, FAILED_LIMIT);
      }
    } catch {
      // No cache yet, or an unreadable one: start empty (it is only a cache).
    }
  }
}

/**
 * How the cache file names a URL: as written, unless it carries a credential (a token, a signature),
 * then by its sha256: the file keeps no secret, and the same URL still finds its entry.
 */
function storedKey(url: string): string {
  return redactUrl(url) === url ? url : `#${createHash('sha256').update(url).digest('hex')}`;
}
