// The DAM API of the sandbox: /images and /files, addressed by reference. Creation and replacement
// fetch the source for real (HEAD probe, streamed GET) from the sandbox's own asset host or an
// allowed loopback host; any other public host is answered as unreachable without any traffic, or,
// with `remoteAssets: 'synthetic'`, as a small generated file of the type the URL names.
// Images are processed in the background (Up -> Ok / Er); files are usable at once.
import { imageSize } from 'image-size';
import type { AssetDirectory, ServiceContext } from '../context.js';
import {
  type ChangeJournal,
  damBodyErrors,
  errorBody,
  json,
  methodNotAllowed,
  noContent,
  notFoundPath,
  type SandboxRequest,
  type SandboxResponse,
  type SandboxService,
} from '../http.js';
import { DEMO_FILES, DEMO_IMAGES } from '../seed/assets.js';
import { type FetchLimits, SourceFetcher } from './fetch-source.js';
import {
  type AssetKind,
  contentTypesFor,
  DOWNLOAD_TIMEOUT_MS,
  IMAGE_CONTENT_TYPES,
  MAX_DIMENSION_PX,
  MAX_TAGS_BYTES,
  maxBytes,
} from './formats.js';
import { msg } from './messages.js';
import { FILE_QUERY, IMAGE_QUERY, listCollection } from './query.js';
import { joinTags, type StoredFile, type StoredImage, showFile, showImage } from './records.js';
import { type SeedFile, type SeedImage, seedFiles, seedImages } from './seed.js';

import { checkSourceUrl, hostStanding, type SourceUrl } from './source-url.js';
import { syntheticSourceUrl } from './synthetic.js';
import { ProcessingWorker } from './worker.js';

export type { FileRecord, ImageRecord, ImageStatus } from './records.js';

/** Knobs tests may turn; every default is the spec's value. */
export interface DamTuning {
  /** Time budget of each source exchange (HEAD probe, GET download). Default 30 s. */
  downloadTimeoutMs?: number;
}

export interface DamSnapshot {
  version: 1;
  nextId: number;
  images: StoredImage[];
  files: StoredFile[];
}

export type DamService = SandboxService &
  AssetDirectory & {
    snapshot(): DamSnapshot;
    restore(state: unknown): void;
    close(): Promise<void>;
  };

export function createDamService(ctx: ServiceContext, tuning: DamTuning = {}): DamService {
  return new Dam(ctx, tuning);
}

type Route = { kind: AssetKind; reference?: string };

/** One asset as it is after a change; `record: null` once deleted. */
interface DamOp {
  op: AssetKind;
  reference: string;
  nextId: number;
  record: StoredImage | StoredFile | null;
}

class Dam implements DamService {
  private images = new Map<string, StoredImage>();
  private files = new Map<string, StoredFile>();
  private nextId = 1;
  private readonly fetcher = new SourceFetcher();
  private readonly worker: ProcessingWorker;
  private readonly timeoutMs: number;

  constructor(
    private readonly ctx: ServiceContext,
    tuning: DamTuning,
  ) {
    this.timeoutMs = tuning.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS;
    this.worker = new ProcessingWorker(ctx.options.processingMs, (reference) =>
      this.finishProcessing(reference),
    );
    if (ctx.options.seed === 'demo') this.seed(DEMO_IMAGES, DEMO_FILES);
  }

  private seed(images: readonly SeedImage[], files: readonly SeedFile[]): void {
    const now = this.ctx.now().toISOString();
    for (const image of seedImages(images, this.nextId, now)) this.images.set(image.reference, image);
    this.nextId += images.length;
    for (const file of seedFiles(files, now)) this.files.set(file.reference, file);
  }

  // --- AssetDirectory: what the catalog checks before accepting an asset name ---

  imageExists(reference: string): boolean {
    const image = this.images.get(reference);
    return image !== undefined && image.status !== 'Dv';
  }

  fileExists(reference: string): boolean {
    return this.files.has(reference);
  }

  // --- persistence ---

  snapshot(): DamSnapshot {
    return {
      version: 1,
      nextId: this.nextId,
      images: [...this.images.values()],
      files: [...this.files.values()],
    };
  }

  restore(state: unknown): void {
    const s = state as Partial<DamSnapshot> | undefined;
    if (s?.version !== 1 || !Array.isArray(s.images) || !Array.isArray(s.files)) return;
    this.worker.clear();
    this.images = new Map(s.images.map((i) => [i.reference, i]));
    this.files = new Map(s.files.map((f) => [f.reference, f]));
    this.nextId = typeof s.nextId === 'number' ? s.nextId : this.images.size + 1;
    // Images that were still uploading when the snapshot was taken finish processing now.
    for (const image of this.images.values()) if (image.status === 'Up') this.worker.enqueue(image.reference);
  }

  // --- the write log: an asset's whole record (or its absence) each time it changes ---

  /** `image:<reference>` / `file:<reference>` changed since the last drain, when tracking. */
  private dirty: Set<string> | undefined;

  readonly journal: ChangeJournal = {
    track: () => {
      this.dirty ??= new Set();
    },
    drain: () => this.drainChanges(),
    apply: (op) => this.applyChange(op as DamOp),
  };

  private changed(kind: AssetKind, reference: string): void {
    this.dirty?.add(`${kind}:${reference}`);
  }

  private drainChanges(): DamOp[] {
    if (!this.dirty || this.dirty.size === 0) return [];
    const ops: DamOp[] = [];
    for (const key of this.dirty) {
      const kind: AssetKind = key.startsWith('image:') ? 'image' : 'file';
      const reference = key.slice(kind.length + 1);
      const record = kind === 'image' ? this.images.get(reference) : this.files.get(reference);
      ops.push({ op: kind, reference, nextId: this.nextId, record: record ?? null });
    }
    this.dirty.clear();
    return ops;
  }

  private applyChange(op: DamOp): void {
    if ((op?.op !== 'image' && op?.op !== 'file') || typeof op.reference !== 'string')
      throw new Error(`unknown DAM operation ${JSON.stringify(op)?.slice(0, 80)}`);
    this.nextId = Math.max(this.nextId, op.nextId);
    if (op.op === 'file') {
      if (op.record) this.files.set(op.reference, op.record as StoredFile);
      else this.files.delete(op.reference);
      return;
    }
    if (!op.record) {
      this.images.delete(op.reference);
      return;
    }
    const image = op.record as StoredImage;
    this.images.set(op.reference, image);
    // Still uploading when it was logged: processing finishes now, as after a snapshot.
    if (image.status === 'Up') this.worker.enqueue(op.reference);
  }

  async close(): Promise<void> {
    this.worker.close();
    await this.fetcher.close();
  }

  // --- HTTP ---

  async handle(req: SandboxRequest): Promise<SandboxResponse> {
    const route = parseRoute(req.path);
    if (!route) return notFoundPath(req.method, req.rawPath);
    const { kind, reference } = route;
    if (reference === undefined) {
      if (req.method === 'GET') return this.list(kind, req);
      if (req.method === 'POST') return this.create(kind, req);
      return methodNotAllowed(req.method, req.rawPath, ['GET', 'POST']);
    }
    if (req.method === 'GET') return this.read(kind, reference);
    if (req.method === 'PATCH') return this.update(kind, reference, req);
    if (req.method === 'DELETE') return this.remove(kind, reference);
    return methodNotAllowed(req.method, req.rawPath, ['GET', 'PATCH', 'DELETE']);
  }

  private list(kind: AssetKind, req: SandboxRequest): SandboxResponse {
    const assetsUrl = this.ctx.urls.assetsUrl;
    const common = {
      collectionUrl: `${this.ctx.urls.damUrl}/${collectionName(kind)}`,
      links: this.ctx.options.damLinks,
    };
    if (kind === 'image') {
      return listCollection(req, {
        ...common,
        records: this.images.values(),
        schema: IMAGE_QUERY,
        show: (i: StoredImage) => ({ ...showImage(i, assetsUrl) }),
      });
    }
    return listCollection(req, {
      ...common,
      records: this.files.values(),
      schema: FILE_QUERY,
      show: (f: StoredFile) => ({ ...showFile(f, assetsUrl) }),
    });
  }

  private read(kind: AssetKind, reference: string): SandboxResponse {
    const shown = this.show(kind, reference);
    return shown ? json(200, { value: shown }) : errorBody(404, msg.notFound(kind, reference));
  }

  private show(kind: AssetKind, reference: string): unknown {
    const assetsUrl = this.ctx.urls.assetsUrl;
    if (kind === 'image') {
      const image = this.images.get(reference);
      return image && showImage(image, assetsUrl);
    }
    const file = this.files.get(reference);
    return file && showFile(file, assetsUrl);
  }

  private async create(kind: AssetKind, req: SandboxRequest): Promise<SandboxResponse> {
    const body = req.json() ?? {};
    if (!isObject(body)) return damBodyErrors([msg.bodyNotObject]);

    // Static checks first, all reported at once: the URL's first failing rule, then the tags.
    const errors: string[] = [];
    const urlCheck = checkSourceUrl(body.url, kind, 'create', this.fetchableHosts());
    if (!urlCheck.ok) errors.push(urlCheck.message);
    const tags = checkTags(body.tags);
    if (!tags.ok) errors.push(...tags.messages);
    if (!urlCheck.ok || !tags.ok) return damBodyErrors(errors);
    const source = urlCheck.source;

    // Conflicts before any traffic: nothing is downloaded for an asset that cannot be stored.
    const conflict = this.conflict(kind, source.reference);
    if (conflict) return conflict;

    const fetched = await this.fetchSource(kind, source, (type) =>
      creationTypeProblem(kind, source.ext, type),
    );
    if (!fetched.ok) return fetched.response;

    // The download took time: another request may have taken the name or the last quota slot.
    const lateConflict = this.conflict(kind, source.reference);
    if (lateConflict) return lateConflict;

    const now = this.ctx.now().toISOString();
    const fileType = source.ext.toLowerCase();
    if (kind === 'image') {
      this.images.set(source.reference, {
        id: this.nextId++,
        reference: source.reference,
        numLinks: 0,
        status: 'Up',
        createdOn: now,
        modifiedOn: now,
        fileType,
        tags: tags.value ?? '',
        originalUrl: source.url.href,
        width: 0,
        height: 0,
        sizeInBytes: 0,
        rendered: false,
        pending: fetched.pending,
      });
      this.worker.enqueue(source.reference);
    } else {
      this.files.set(source.reference, {
        reference: source.reference,
        fileType,
        contentType: fetched.contentType,
        sizeInBytes: fetched.pending.sizeInBytes,
        tags: tags.value ?? '',
        originalUrl: source.url.href,
        createdOn: now,
        modifiedOn: now,
      });
    }
    this.changed(kind, source.reference);
    this.ctx.markDirty();

    const collectionUrl = `${this.ctx.urls.damUrl}/${collectionName(kind)}`;
    const created: Record<string, unknown> = { value: { reference: source.reference } };
    if (this.ctx.options.damLinks) {
      created['@readLink'] = collectionUrl;
      created['@editLink'] = collectionUrl;
    }
    return json(201, created, { location: `${collectionUrl}(${encodeURIComponent(source.reference)})` });
  }

  private async update(kind: AssetKind, reference: string, req: SandboxRequest): Promise<SandboxResponse> {
    const current = this.lookup(kind, reference);
    if (!current) return errorBody(404, msg.notFound(kind, reference));
    if (kind === 'image' && (current as StoredImage).status === 'Up')
      return errorBody(409, msg.processing(reference));

    const body = req.json() ?? {};
    if (!isObject(body)) return damBodyErrors([msg.bodyNotObject]);
    const hasUrl = body.url !== undefined;
    const hasTags = body.tags !== undefined;
    if (!hasUrl && !hasTags) return damBodyErrors([msg.patchNeedsField]);

    const errors: string[] = [];
    let source: SourceUrl | undefined;
    if (hasUrl) {
      const urlCheck = checkSourceUrl(body.url, kind, 'replace', this.fetchableHosts());
      if (urlCheck.ok) source = urlCheck.source;
      else errors.push(urlCheck.message);
    }
    const tags = checkTags(body.tags);
    if (!tags.ok) errors.push(...tags.messages);
    if (errors.length > 0) return damBodyErrors(errors);

    let replacement: Fetched | undefined;
    if (source) {
      const fileType = current.fileType;
      const fetched = await this.fetchSource(
        kind,
        source,
        (type) => replacementTypeProblem(kind, fileType, type),
        fileType,
      );
      if (!fetched.ok) return fetched.response;
      replacement = fetched;
    }

    // Look again: the asset may have been deleted or replaced while the source was downloading.
    const now = this.ctx.now().toISOString();
    if (kind === 'image') {
      const image = this.images.get(reference);
      if (!image) return errorBody(404, msg.notFound(kind, reference));
      if (image.status === 'Up') return errorBody(409, msg.processing(reference));
      if (tags.ok && tags.value !== undefined) image.tags = tags.value;
      if (replacement && source) {
        // Back to Up: the old renditions and measurements no longer describe the content.
        Object.assign(image, {
          status: 'Up',
          originalUrl: source.url.href,
          width: 0,
          height: 0,
          sizeInBytes: 0,
        });
        image.rendered = false;
        image.pending = replacement.pending;
        this.worker.enqueue(reference);
      }
      image.modifiedOn = now;
    } else {
      const file = this.files.get(reference);
      if (!file) return errorBody(404, msg.notFound(kind, reference));
      if (tags.ok && tags.value !== undefined) file.tags = tags.value;
      if (replacement && source) {
        file.originalUrl = source.url.href;
        file.contentType = replacement.contentType;
        file.sizeInBytes = replacement.pending.sizeInBytes;
      }
      file.modifiedOn = now;
    }
    this.changed(kind, reference);
    this.ctx.markDirty();
    return json(200, { value: this.show(kind, reference) });
  }

  private remove(kind: AssetKind, reference: string): SandboxResponse {
    if (kind === 'image') {
      const image = this.images.get(reference);
      if (!image) return errorBody(404, msg.notFound(kind, reference));
      if (image.status === 'Up') return errorBody(409, msg.processing(reference));
      this.images.delete(reference);
    } else if (!this.files.delete(reference)) {
      return errorBody(404, msg.notFound(kind, reference));
    }
    this.changed(kind, reference);
    this.ctx.markDirty();
    return noContent();
  }

  // --- helpers ---

  private lookup(kind: AssetKind, reference: string): StoredImage | StoredFile | undefined {
    return kind === 'image' ? this.images.get(reference) : this.files.get(reference);
  }

  /** 409 for a taken reference or a full library; `Dv` images do not count toward the quota. */
  private conflict(kind: AssetKind, reference: string): SandboxResponse | undefined {
    if (this.lookup(kind, reference)) return errorBody(409, msg.duplicate(kind, reference));
    const { imageQuota, fileQuota } = this.ctx.options;
    if (kind === 'image') {
      let current = 0;
      for (const image of this.images.values()) if (image.status !== 'Dv') current++;
      if (current >= imageQuota) return errorBody(409, msg.quota(kind, current, imageQuota));
    } else if (this.files.size >= fileQuota) {
      return errorBody(409, msg.quota(kind, this.files.size, fileQuota));
    }
    return undefined;
  }

  /** The sandbox's own asset host (host:port) and the configured extra hosts. */
  private fetchableHosts(): string[] {
    return [new URL(this.ctx.urls.assetsUrl).host, ...this.ctx.options.allowHosts];
  }

  private async fetchSource(
    kind: AssetKind,
    source: SourceUrl,
    checkContentType: FetchLimits['checkContentType'],
    currentType?: string,
  ): Promise<Fetched | { ok: false; response: SandboxResponse }> {
    let fetchUrl = source.url;
    if (hostStanding(source.url, this.fetchableHosts()) === 'outside') {
      // A host that passed the public-host rule but is not one the sandbox may reach: the real
      // service would try and fail in transport; the sandbox answers the same without any traffic,
      // unless it stands in for remote hosts with generated files of the named type.
      if (this.ctx.options.remoteAssets !== 'synthetic')
        return { ok: false, response: errorBody(500, msg.unreachable(source.url.hostname)) };
      fetchUrl = syntheticSourceUrl(source.url, this.ctx.urls.assetsUrl, kind, currentType ?? source.ext);
    }

    const result = await this.fetcher.fetch(fetchUrl, {
      maxBytes: maxBytes(kind),
      tooLarge: kind === 'image' ? msg.imageTooLarge : msg.fileTooLarge,
      timeoutMs: this.timeoutMs,
      checkContentType,
    });
    if (!result.ok) {
      const response =
        result.status === 500 ? errorBody(500, result.message) : damBodyErrors([result.message]);
      return { ok: false, response };
    }
    const { download } = result;
    let width = 0;
    let height = 0;
    if (kind === 'image') {
      const measured = measure(download.head);
      if ('problems' in measured) return { ok: false, response: damBodyErrors(measured.problems) };
      ({ width, height } = measured);
    }
    return {
      ok: true,
      contentType: download.contentType ?? '',
      pending: { width, height, sizeInBytes: download.sizeInBytes, fail: download.failMarker },
    };
  }

  /** The background worker's verdict on one image: Ok with its measurements, or Er. */
  private finishProcessing(reference: string): void {
    const image = this.images.get(reference);
    if (image?.status !== 'Up' || !image.pending) return;
    const { pending } = image;
    if (pending.fail) {
      image.status = 'Er';
    } else {
      image.status = 'Ok';
      image.width = pending.width;
      image.height = pending.height;
      image.sizeInBytes = pending.sizeInBytes;
      image.rendered = true;
    }
    image.pending = undefined;
    image.modifiedOn = this.ctx.now().toISOString();
    this.changed('image', reference);
    this.ctx.markDirty();
  }
}

interface Fetched {
  ok: true;
  contentType: string;
  pending: StoredImage['pending'] & {};
}

function collectionName(kind: AssetKind): string {
  return kind === 'image' ? 'images' : 'files';
}

/** `/images`, `/files`, `/images(<reference>)`, `/files(<reference>)`; quotes around the reference are optional. */
function parseRoute(path: string): Route | undefined {
  for (const kind of ['image', 'file'] as const) {
    const name = `/${collectionName(kind)}`;
    if (path === name) return { kind };
    if (path.startsWith(`${name}(`) && path.endsWith(')')) {
      let reference = path.slice(name.length + 1, -1);
      if (reference.length >= 2 && reference.startsWith("'") && reference.endsWith("'"))
        reference = reference.slice(1, -1).replaceAll("''", "'");
      return { kind, reference };
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type TagCheck = { ok: true; value: string | undefined } | { ok: false; messages: string[] };

/** Tags: an array of non-blank strings whose comma-joined form fits in 64 KB. */
function checkTags(value: unknown): TagCheck {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (!Array.isArray(value) || value.some((t) => typeof t !== 'string'))
    return { ok: false, messages: [msg.tagsNotStrings] };
  const tags = value as string[];
  const messages: string[] = [];
  if (tags.some((t) => t.trim() === '')) messages.push(msg.emptyTag);
  const joined = joinTags(tags);
  if (Buffer.byteLength(joined, 'utf8') > MAX_TAGS_BYTES) messages.push(msg.tagsTooLong);
  return messages.length > 0 ? { ok: false, messages } : { ok: true, value: joined };
}

/** POST: the spec's Content-Type rules (images); files need a Content-Type of any kind. */
function creationTypeProblem(kind: AssetKind, ext: string, type: string | undefined): string | undefined {
  if (!type) return msg.noContentType;
  if (kind === 'file') return undefined;
  if (type === 'application/octet-stream')
    return ext.toLowerCase() === 'psd' ? undefined : msg.genericContentType(ext);
  if (!IMAGE_CONTENT_TYPES.includes(type)) return msg.notImageContentType(type);
  return undefined;
}

/** PATCH: the replacement's Content-Type must match the asset's current file type. */
function replacementTypeProblem(
  kind: AssetKind,
  fileType: string,
  type: string | undefined,
): string | undefined {
  if (!type) return msg.noContentType;
  const expected = contentTypesFor(kind, fileType);
  // Generic binary is accepted for non-image files, whose servers often send nothing more precise.
  if (kind === 'file' && type === 'application/octet-stream') return undefined;
  return expected.includes(type) ? undefined : msg.contentTypeMismatch(kind, type, fileType, expected);
}

/** Dimensions read from the actual bytes, with the spec's 30,000 px limits. */
function measure(head: Buffer): { width: number; height: number } | { problems: string[] } {
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = imageSize(head));
  } catch {
    return { problems: [msg.dimensionsUnreadable] };
  }
  if (!width || !height) return { problems: [msg.dimensionsUnreadable] };
  const problems: string[] = [];
  if (width > MAX_DIMENSION_PX) problems.push(msg.tooWide(width));
  if (height > MAX_DIMENSION_PX) problems.push(msg.tooTall(height));
  return problems.length > 0 ? { problems } : { width, height };
}
