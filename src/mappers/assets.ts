// Image/file values: an http(s) URL becomes an asset to register, checked here against the DAM spec's
// URL rules so a bad URL is a row error without a request; a plain name stays a DAM name.

/** DAM spec, POST /images: accepted image extensions. File extensions are not listed: any extension. */
export const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'tif', 'tiff', 'webp', 'psd']);
export const MAX_URL_LENGTH = 2048;
/** Filename length from the URL, extension excluded. */
export const MAX_FILENAME_LENGTH = 255;

export type AssetValue = { ok: true; url?: string; name: string } | { ok: false; expected: string };

export function readAssetValue(text: string, kind: 'image' | 'file'): AssetValue {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (text.includes('/')) return { ok: false, expected: `a DAM ${kind} name or an http(s) URL` };
    return { ok: true, name: text };
  }
  if (text.length > MAX_URL_LENGTH)
    return { ok: false, expected: `a URL of at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, expected: 'a valid http(s) URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, expected: 'an http or https URL' };
  const last = url.pathname.split('/').pop() ?? '';
  let filename: string;
  try {
    filename = decodeURIComponent(last);
  } catch {
    filename = last;
  }
  const dot = filename.lastIndexOf('.');
  const extension = dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
  if (!extension) return { ok: false, expected: `a URL ending in a filename with an extension` };
  if (kind === 'image' && !IMAGE_EXTENSIONS.has(extension)) {
    return { ok: false, expected: `an image URL ending in .${[...IMAGE_EXTENSIONS].join(', .')}` };
  }
  if (dot > MAX_FILENAME_LENGTH) {
    return {
      ok: false,
      expected: `a filename of at most ${MAX_FILENAME_LENGTH} characters before the extension`,
    };
  }
  return { ok: true, url: text, name: filename };
}
