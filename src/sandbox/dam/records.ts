// The DAM's state: image and file records as stored (JSON-serialisable, for the snapshot), and how
// each is shown to clients. URLs on the sandbox's own asset host are stored relative to it, so a
// snapshot stays valid when the sandbox restarts on another port.

export type ImageStatus = 'Vd' | 'Up' | 'Ok' | 'Re' | 'Er' | 'Dv';

/** What the download found, applied by the background worker when processing ends. */
export interface PendingProcessing {
  width: number;
  height: number;
  sizeInBytes: number;
  /** The content carries the fail-processing marker: the worker moves the image to Er. */
  fail: boolean;
}

export interface StoredImage {
  id: number;
  reference: string;
  numLinks: number;
  status: ImageStatus;
  createdOn: string;
  modifiedOn: string;
  fileType: string;
  /** One comma-joined string, as the real service stores tags. */
  tags: string;
  /** Absolute source URL, or a path starting with `/` on the sandbox's asset host. */
  originalUrl: string;
  width: number;
  height: number;
  sizeInBytes: number;
  /** Thumbnails exist (set when processing succeeds). */
  rendered: boolean;
  pending?: PendingProcessing;
}

export interface StoredFile {
  reference: string;
  fileType: string;
  contentType: string;
  sizeInBytes: number;
  tags: string;
  originalUrl: string;
  createdOn: string;
  modifiedOn: string;
}

export interface ImageRecord {
  id: number;
  reference: string;
  numLinks: number;
  status: ImageStatus;
  modifiedOn: string;
  createdOn: string;
  fileType: string;
  tags: string[];
  originalUrl: string;
  thumbnailUrl: string;
  thumbnailMediumUrl: string;
  thumbnailPreviewUrl: string;
  width: number;
  height: number;
  sizeInBytes: number;
}

export interface FileRecord {
  reference: string;
  fileType: string;
  contentType: string;
  sizeInBytes: number;
  tags: string[];
  originalUrl: string;
  createdOn: string;
  modifiedOn: string;
}

/** Longest side of each rendition, in pixels (never upscaled). */
const RENDITIONS = { thumbnailUrl: 150, thumbnailMediumUrl: 400, thumbnailPreviewUrl: 800 } as const;

export function joinTags(tags: readonly string[]): string {
  return tags.join(',');
}

/** A tag containing a comma comes back as several tags: the stored form is one comma-joined string. */
export function splitTags(stored: string): string[] {
  return stored === '' ? [] : stored.split(',');
}

export function absoluteUrl(stored: string, assetsUrl: string): string {
  return stored.startsWith('/') ? assetsUrl + stored : stored;
}

export function showImage(image: StoredImage, assetsUrl: string): ImageRecord {
  const rendition = (box: number) => {
    if (!image.rendered) return '';
    const scale = Math.min(1, box / Math.max(image.width, image.height, 1));
    const w = Math.max(1, Math.round(image.width * scale));
    const h = Math.max(1, Math.round(image.height * scale));
    return `${assetsUrl}/renditions/${box}/${encodeURIComponent(image.reference)}.jpg?w=${w}&h=${h}`;
  };
  return {
    id: image.id,
    reference: image.reference,
    numLinks: image.numLinks,
    status: image.status,
    modifiedOn: image.modifiedOn,
    createdOn: image.createdOn,
    fileType: image.fileType,
    tags: splitTags(image.tags),
    originalUrl: absoluteUrl(image.originalUrl, assetsUrl),
    thumbnailUrl: rendition(RENDITIONS.thumbnailUrl),
    thumbnailMediumUrl: rendition(RENDITIONS.thumbnailMediumUrl),
    thumbnailPreviewUrl: rendition(RENDITIONS.thumbnailPreviewUrl),
    width: image.width,
    height: image.height,
    sizeInBytes: image.sizeInBytes,
  };
}

export function showFile(file: StoredFile, assetsUrl: string): FileRecord {
  return {
    reference: file.reference,
    fileType: file.fileType,
    contentType: file.contentType,
    sizeInBytes: file.sizeInBytes,
    tags: splitTags(file.tags),
    originalUrl: absoluteUrl(file.originalUrl, assetsUrl),
    createdOn: file.createdOn,
    modifiedOn: file.modifiedOn,
  };
}
