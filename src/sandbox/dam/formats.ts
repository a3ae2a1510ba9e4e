// What the DAM accepts: the spec's image table, and the sandbox's own choice for non-image files
// (the spec leaves those "not shown"; docs/sandbox.md records the choice).

export type AssetKind = 'image' | 'file';

/** Image extensions in the order the spec's 400 message lists them. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'tif', 'tiff', 'psd', 'webp'] as const;

/** Accepted Content-Type values per image extension (spec table). */
const IMAGE_TYPES: Record<string, readonly string[]> = {
  jpg: ['image/jpeg'],
  jpeg: ['image/jpeg'],
  png: ['image/png'],
  gif: ['image/gif'],
  tif: ['image/tiff', 'image/x-tiff'],
  tiff: ['image/tiff', 'image/x-tiff'],
  webp: ['image/webp'],
  psd: ['image/vnd.adobe.photoshop', 'image/photoshop', 'image/psd', 'application/octet-stream'],
};

/** Every accepted image Content-Type, in the spec table's order, for the 400 message. */
export const IMAGE_CONTENT_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/tiff',
  'image/x-tiff',
  'image/webp',
  'image/vnd.adobe.photoshop',
  'image/photoshop',
  'image/psd',
  'application/octet-stream',
];

/** Non-image file extensions and the Content-Types that match each (used when a PATCH replaces a file). */
const FILE_TYPES: Record<string, readonly string[]> = {
  pdf: ['application/pdf'],
  csv: ['text/csv', 'application/csv', 'text/plain'],
  txt: ['text/plain'],
  zip: ['application/zip', 'application/x-zip-compressed'],
  doc: ['application/msword'],
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  xls: ['application/vnd.ms-excel'],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  json: ['application/json', 'text/json'],
  xml: ['application/xml', 'text/xml'],
};

export const FILE_EXTENSIONS = Object.keys(FILE_TYPES);

/** 250 MB, as the spec counts it: 262,144,000 bytes. */
export const IMAGE_MAX_BYTES = 262_144_000;
/** Sandbox choice for non-image files: 100 MB (104,857,600 bytes). */
export const FILE_MAX_BYTES = 104_857_600;
export const MAX_DIMENSION_PX = 30_000;
export const MAX_URL_CHARS = 2048;
export const MAX_FILENAME_CHARS = 255;
/** The comma-joined tag list must fit in 64 KB (UTF-8 bytes). */
export const MAX_TAGS_BYTES = 64 * 1024;
export const DOWNLOAD_TIMEOUT_MS = 30_000;

export function allowedExtensions(kind: AssetKind): readonly string[] {
  return kind === 'image' ? IMAGE_EXTENSIONS : FILE_EXTENSIONS;
}

export function isAllowedExtension(kind: AssetKind, ext: string): boolean {
  return allowedExtensions(kind).includes(ext.toLowerCase());
}

/** Content-Types that match an asset's file type (for PATCH with a replacement URL). */
export function contentTypesFor(kind: AssetKind, fileType: string): readonly string[] {
  return (kind === 'image' ? IMAGE_TYPES : FILE_TYPES)[fileType] ?? [];
}

export function maxBytes(kind: AssetKind): number {
  return kind === 'image' ? IMAGE_MAX_BYTES : FILE_MAX_BYTES;
}

/** `image/png; charset=x` -> `image/png`; undefined when absent or blank. */
export function mediaType(header: string | undefined): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type ? type : undefined;
}
