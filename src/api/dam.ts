// The DAM API client: images and files registered from public URLs, addressed by reference (the
// file name). Collections are paged by raising $skip unless the deployment sends @nextLink.
import { CatalogIoError } from '../errors.js';
import { badResponse, header } from './errors.js';
import { chunkIn } from './filter.js';
import { items } from './paging.js';
import { sleep } from './retry.js';
import type { ServiceHttp } from './service-http.js';
import type { Query } from './url.js';

export type AssetKind = 'image' | 'file';

export type ImageStatus = 'Vd' | 'Up' | 'Ok' | 'Re' | 'Er' | 'Dv';

export interface ImageRecord {
  id?: number;
  reference: string;
  numLinks?: number;
  status: ImageStatus;
  modifiedOn?: string;
  createdOn?: string;
  fileType?: string;
  tags?: string[];
  originalUrl?: string;
  thumbnailUrl?: string;
  thumbnailMediumUrl?: string;
  thumbnailPreviewUrl?: string;
  width?: number;
  height?: number;
  sizeInBytes?: number;
}

/** The file record's fields beyond these are not in the contract. */
export interface FileRecord {
  reference: string;
  createdOn?: string;
  modifiedOn?: string;
  [field: string]: unknown;
}

export interface Registered {
  reference: string;
  /** The Location header when sent (absolute URL of `/images(<reference>)`). */
  location?: string;
}

export interface AssetChange {
  /** A replacement source URL. */
  url?: string;
  /** Replaces every tag. */
  tags?: string[];
}

export interface AssetListOptions {
  filter?: string;
  orderby?: string;
  pageSize?: number;
}

const COLLECTION: Record<AssetKind, string> = { image: '/images', file: '/files' };

export class DamClient {
  constructor(readonly http: ServiceHttp) {}

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  url(path: string, query?: Query): string {
    return this.http.url(path, query);
  }

  registerImage(url: string, tags?: string[]): Promise<Registered> {
    return this.register('image', url, tags);
  }

  registerFile(url: string, tags?: string[]): Promise<Registered> {
    return this.register('file', url, tags);
  }

  /** POST /images or /files. A failure with an unknown outcome is marked ambiguous: look the reference up before retrying. */
  async register(kind: AssetKind, url: string, tags?: string[]): Promise<Registered> {
    const path = COLLECTION[kind];
    const res = await this.http.request<{ value?: { reference?: string } } | undefined>({
      method: 'POST',
      path,
      body: tags && tags.length > 0 ? { url, tags } : { url },
    });
    const location = header(res.headers, 'location');
    const reference = res.body?.value?.reference ?? (location ? referenceFromLocation(location) : undefined);
    if (!reference) {
      throw badResponse(
        { service: this.http.service, method: 'POST', path },
        res.status,
        'answered without the new reference',
      );
    }
    return location ? { reference, location } : { reference };
  }

  getImage(reference: string): Promise<ImageRecord> {
    return this.getAsset<ImageRecord>('image', reference);
  }

  getFile(reference: string): Promise<FileRecord> {
    return this.getAsset<FileRecord>('file', reference);
  }

  async getAsset<T>(kind: AssetKind, reference: string): Promise<T> {
    const path = assetPath(kind, reference);
    const res = await this.http.request<{ value?: T } | undefined>({ method: 'GET', path });
    if (!res.body || typeof res.body !== 'object' || res.body.value === undefined) {
      throw badResponse(
        { service: this.http.service, method: 'GET', path },
        res.status,
        'answered without { value }',
      );
    }
    return res.body.value;
  }

  patchImage(reference: string, change: AssetChange): Promise<void> {
    return this.patchAsset('image', reference, change);
  }

  patchFile(reference: string, change: AssetChange): Promise<void> {
    return this.patchAsset('file', reference, change);
  }

  async patchAsset(kind: AssetKind, reference: string, change: AssetChange): Promise<void> {
    if (change.url === undefined && change.tags === undefined) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `Nothing to change on ${kind} ${reference}: give a url, tags or both`,
      );
    }
    await this.http.request({ method: 'PATCH', path: assetPath(kind, reference), body: change });
  }

  async deleteImage(reference: string): Promise<{ alreadyGone: boolean }> {
    const res = await this.http.request({ method: 'DELETE', path: assetPath('image', reference) });
    return { alreadyGone: res.alreadyGone === true };
  }

  async deleteFile(reference: string): Promise<{ alreadyGone: boolean }> {
    const res = await this.http.request({ method: 'DELETE', path: assetPath('file', reference) });
    return { alreadyGone: res.alreadyGone === true };
  }

  listImages(options: AssetListOptions = {}): AsyncGenerator<ImageRecord> {
    return this.list<ImageRecord>('image', options);
  }

  listFiles(options: AssetListOptions = {}): AsyncGenerator<FileRecord> {
    return this.list<FileRecord>('file', options);
  }

  list<T>(kind: AssetKind, options: AssetListOptions = {}): AsyncGenerator<T> {
    return items<T>(this.http, COLLECTION[kind], {
      mode: 'skip',
      query: { $filter: options.filter, $orderby: options.orderby },
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    });
  }

  /** The collection's `@count` under `filter`, and its first record by `orderby` (one request). */
  async peek<T>(
    kind: AssetKind,
    options: { filter?: string; orderby?: string } = {},
  ): Promise<{ count: number | undefined; first: T | undefined }> {
    const res = await this.http.request<{ value?: T[]; '@count'?: unknown } | undefined>({
      method: 'GET',
      path: COLLECTION[kind],
      query: { $filter: options.filter, $orderby: options.orderby, $top: 1 },
    });
    const count = res.body?.['@count'];
    return { count: typeof count === 'number' ? count : undefined, first: res.body?.value?.[0] };
  }

  /** Assets among `references` that exist, looked up with `reference in (...)` in URL-sized chunks. */
  async *existing<T = ImageRecord>(kind: AssetKind, references: Iterable<string>): AsyncGenerator<T> {
    const path = COLLECTION[kind];
    for (const filter of chunkIn('reference', references, {
      baseUrl: this.url(path),
      otherParams: { $top: 100 },
      maxValues: 100,
    })) {
      yield* items<T>(this.http, path, { mode: 'skip', query: { $filter: filter } });
    }
  }

  /**
   * Polls an image until processing ends (status Ok or Er), or the time is up (then the last record).
   * The wait between polls starts at `intervalMs` and grows by half each time up to `maxIntervalMs`:
   * a slow image costs few requests.
   */
  async waitForImage(
    reference: string,
    options: { timeoutMs?: number; intervalMs?: number; maxIntervalMs?: number } = {},
  ): Promise<ImageRecord> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    const longest = options.maxIntervalMs ?? 5_000;
    let interval = options.intervalMs ?? 500;
    for (;;) {
      const record = await this.getImage(reference);
      if (record.status !== 'Up' && record.status !== 'Re' && record.status !== 'Vd') return record;
      if (Date.now() + interval > deadline) return record;
      await sleep(interval);
      interval = Math.min(longest, Math.round(interval * 1.5));
    }
  }
}

/** `/images(photo.jpg)`, `/files(manual.pdf)`. */
export function assetPath(kind: AssetKind, reference: string): string {
  return `${COLLECTION[kind]}(${reference})`;
}

function referenceFromLocation(location: string): string | undefined {
  let decoded = location;
  try {
    decoded = decodeURIComponent(location);
  } catch {
    // a malformed escape: read the Location as sent
  }
  const m = /\(([^()]*)\)\/?$/.exec(decoded);
  return m ? m[1]!.replace(/^'(.*)'$/, '$1') : undefined;
}
