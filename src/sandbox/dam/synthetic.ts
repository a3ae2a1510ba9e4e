// `remoteAssets: 'synthetic'`: a URL on a host the sandbox cannot reach is answered as if that host
// served a small file of the type the URL names, so a real supplier feed can be tried offline. The
// answer comes from the sandbox's own asset host (a real HEAD and GET over loopback), so every DAM
// rule after the host check (Content-Type, size, dimensions) still runs on real bytes.
import { type AssetKind, contentTypesFor } from './formats.js';

/** Types the asset host draws or writes itself. */
const HOSTED = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'tif',
  'tiff',
  'psd',
  'pdf',
  'csv',
  'txt',
  'json',
  'xml',
  'zip',
  'docx',
  'xlsx',
]);

/** A host starting with `dead.` or a path with a `/404/` segment: the source answers 404. */
export function isDeadSource(url: URL): boolean {
  return url.hostname.toLowerCase().startsWith('dead.') || url.pathname.includes('/404/');
}

/**
 * The asset-host URL that stands in for `url`. The type comes from the filename's extension, else
 * from a path segment naming a type (`/png/`), else `fallbackType` (a replacement keeps the asset's
 * current file type). Types the host does not make (doc, xls) are sent as small text with their own
 * Content-Type.
 */
export function syntheticSourceUrl(url: URL, assetsUrl: string, kind: AssetKind, fallbackType: string): URL {
  const type = namedType(url) ?? fallbackType.toLowerCase();
  const target = new URL(`${assetsUrl}/synthetic/remote.${HOSTED.has(type) ? type : 'txt'}`);
  if (isDeadSource(url)) target.searchParams.set('status', '404');
  else if (!HOSTED.has(type)) {
    const contentType = contentTypesFor(kind, type)[0];
    if (contentType) target.searchParams.set('type', contentType);
  }
  return target;
}

function namedType(url: URL): string | undefined {
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const last = segments.at(-1) ?? '';
  const dot = last.lastIndexOf('.');
  if (dot > 0) return last.slice(dot + 1).toLowerCase();
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!.toLowerCase();
    if (HOSTED.has(segment)) return segment;
  }
  return undefined;
}
