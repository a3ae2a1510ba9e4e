// The demo tenant's assets, present from the start: processed images (status Ok, with dimensions)
// and files, all served by the sandbox's own asset host so their URLs answer real bytes.
import type { StoredFile, StoredImage } from './records.js';

export interface SeedImage {
  reference: string;
  width: number;
  height: number;
}

export interface SeedFile {
  reference: string;
}

/** Nominal size of a seeded image: the asset host makes the bytes on demand, so none were counted. */
function nominalSize(width: number, height: number): number {
  return 1024 + Math.round(width * height * 0.3);
}

function extensionOf(reference: string): string {
  const dot = reference.lastIndexOf('.');
  return dot > 0 ? reference.slice(dot + 1).toLowerCase() : '';
}

export function seedImages(images: readonly SeedImage[], firstId: number, now: string): StoredImage[] {
  return images.map((image, i) => ({
    id: firstId + i,
    reference: image.reference,
    numLinks: 0,
    status: 'Ok',
    createdOn: now,
    modifiedOn: now,
    fileType: extensionOf(image.reference),
    tags: 'demo',
    originalUrl: `/${encodeURIComponent(image.reference)}?w=${image.width}&h=${image.height}`,
    width: image.width,
    height: image.height,
    sizeInBytes: nominalSize(image.width, image.height),
    rendered: true,
  }));
}

const FILE_CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  txt: 'text/plain',
  zip: 'application/zip',
  json: 'application/json',
  xml: 'application/xml',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export function seedFiles(files: readonly SeedFile[], now: string): StoredFile[] {
  return files.map((file) => {
    const fileType = extensionOf(file.reference);
    return {
      reference: file.reference,
      fileType,
      contentType: FILE_CONTENT_TYPES[fileType] ?? 'application/octet-stream',
      sizeInBytes: 2048,
      tags: 'demo',
      originalUrl: `/${encodeURIComponent(file.reference)}`,
      createdOn: now,
      modifiedOn: now,
    };
  });
}
