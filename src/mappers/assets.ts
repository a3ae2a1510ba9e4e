// Image/file values: an http(s) URL becomes an asset to register, checked here against the DAM spec's
// URL rules so a bad URL is a row error without a request; a plain name stays a DAM name. The name's
// verdict (`unusableName`) is decided here too, once per reference: validate, the plan and the import
// read it from `AssetRef.unusable`.

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

/** Characters the catalog refuses in an image or file name (Catalog API: "invalid characters in the name"). */
const REFUSED_IN_NAME = /["{}[\]\\<>|*?:]/;

/**
 * Why the catalog would refuse this image or file name in a record, or undefined. The DAM registers such
 * a name from a URL all the same (its file name, decoded), so the import must not: the record's write
 * would fail for it. Refused: the characters `" { } [ ] \ < > | * ? :` and control characters; spaces
 * around the name (the catalog trims names, and would look for another); and, in a field of one name
 * (`single`), a comma: the catalog reads a text value as comma-separated names. Called by `toAssets` only,
 * which keeps the answer on the AssetRef (`unusable`).
 */
export function unusableName(name: string, single: boolean): string | undefined {
  const bad = REFUSED_IN_NAME.exec(name)?.[0] ?? [...name].find((c) => c.charCodeAt(0) < 0x20);
  if (bad !== undefined) {
    // A control character is shown as its code (`\u000a`), not as a line break in the report.
    const shown = [...name]
      .map((c) => (c.charCodeAt(0) < 0x20 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
      .join('');
    const what = bad.charCodeAt(0) < 0x20 ? 'a control character' : `'${bad}'`;
    return `the catalog refuses the name '${shown}': ${what} is one of the characters a name cannot hold (" { } [ ] \\ < > | * ? : and control characters); rename the file`;
  }
  if (name !== name.trim())
    return `the catalog refuses the name '${name}': it trims the spaces around a name and would look for '${name.trim()}'; rename the file`;
  if (single && name.includes(','))
    return `the catalog refuses the name '${name}' in a field of one name: it reads a comma as a separator between names; rename the file`;
  return undefined;
}
