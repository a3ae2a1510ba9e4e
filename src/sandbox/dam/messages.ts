// Every message the DAM answers with. Those in the spec's tables are verbatim; the rest are the
// sandbox's choices where the spec says "not shown" (listed in docs/sandbox.md).
import { randomBytes } from 'node:crypto';
import { type AssetKind, allowedExtensions, IMAGE_CONTENT_TYPES } from './formats.js';

const Noun = (kind: AssetKind) => (kind === 'image' ? 'Image' : 'File');

/** A support code for 500 answers, the way the real service lets people quote an incident. */
export function supportCode(): string {
  return `DAM-${randomBytes(4).toString('hex').toUpperCase()}`;
}

function megabytes(bytes: number): string {
  return (bytes / 1_048_576).toFixed(2);
}

export const msg = {
  // 400, spec verbatim
  urlRequired: 'URL is required',
  urlTooLong: 'URL exceeds maximum length of 2048 characters',
  urlInvalid: 'URL is not valid',
  urlScheme: 'URL must use HTTP or HTTPS protocol',
  noExtension:
    'Could not determine file type from URL. Please ensure the URL contains a filename with an extension.',
  extensionNotAllowed: (kind: AssetKind, ext: string) =>
    `File extension '${ext}' is not allowed. Allowed extensions: ${allowedExtensions(kind).join(', ')}`,
  filenameTooLong: 'File name exceeds maximum length of 255 characters',
  hostNotAllowed: (host: string) => `URL host '${host}' is not allowed.`,
  notAccessible: (status: number, reason: string) =>
    `URL is not accessible. HTTP status: ${status} ${reason}`,
  noContentType: 'URL does not return a valid Content-Type header',
  genericContentType: (ext: string) =>
    `URL returns generic Content-Type (application/octet-stream) for non-PSD file. Extension detected: ${ext}`,
  notImageContentType: (type: string) =>
    `URL does not return an image Content-Type. Received: ${type}. Allowed types: ${IMAGE_CONTENT_TYPES.join(', ')}`,
  emptyFile: 'The uploaded file is empty',
  imageTooLarge: (bytes: number) =>
    `Image file size (${megabytes(bytes)} MB) exceeds maximum allowed size of 250 MB`,
  dimensionsUnreadable:
    'Could not read image dimensions from the uploaded file. Ensure it is a valid image in a supported format.',
  tooWide: (px: number) => `Image width (${px}px) exceeds maximum allowed width of 30000px`,
  tooTall: (px: number) => `Image height (${px}px) exceeds maximum allowed height of 30000px`,
  emptyTag: 'Tags cannot contain empty values',

  // 400, sandbox choices
  fileTooLarge: (bytes: number) =>
    `File size (${megabytes(bytes)} MB) exceeds maximum allowed size of 100 MB`,
  contentTypeMismatch: (kind: AssetKind, type: string, fileType: string, expected: readonly string[]) =>
    `URL returns Content-Type ${type}, which does not match the ${kind}'s file type '${fileType}'. Expected: ${expected.join(', ')}`,
  tagsNotStrings: 'Tags must be an array of strings',
  tagsTooLong: 'Tags exceed the maximum length of 64 KB',
  bodyNotObject: 'The request body must be a JSON object',
  patchNeedsField: "At least one of 'url' or 'tags' is required",

  // 404 / 409
  notFound: (kind: AssetKind, reference: string) => `${Noun(kind)} '${reference}' was not found`,
  duplicate: (kind: AssetKind, reference: string) =>
    `${kind === 'image' ? 'An image' : 'A file'} with the filename '${reference}' already exists`,
  quota: (kind: AssetKind, current: number, maximum: number) =>
    `${Noun(kind)} library limit reached. Current: ${current}, Maximum: ${maximum}.`,
  processing: (reference: string) =>
    `Image '${reference}' is being processed (status Up); try again once its status is Ok or Er`,

  // 500, with a support code
  unreachable: (host: string) =>
    `Could not download the file: the source host '${host}' could not be reached. Support code: ${supportCode()}`,
  timeout: (seconds: number) =>
    `Could not download the file: the download timed out after ${seconds} seconds. Support code: ${supportCode()}`,
};
