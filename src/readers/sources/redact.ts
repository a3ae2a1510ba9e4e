// Source names as they may be shown to people: a URL loses its user:password and the values of
// query parameters that look like secrets, so error messages and reports never leak them.
import { CatalogIoError } from '../../errors.js';

const SECRET_PARAM = /key|token|secret|sig|signature|pass|auth|credential|session|code/i;

/** The source as it may appear in messages: credentials and secret-looking query values replaced by `***`. */
export function displayName(spec: string): string {
  if (!/^https?:\/\//i.test(spec)) return spec;
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return spec.replace(/\/\/[^/@]*@/, '//***@').replace(/\?.*$/, '?***');
  }
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, '***');
  }
  // URLSearchParams encodes `*`; keep the mask readable.
  return url.toString().replaceAll('%2A%2A%2A', '***');
}

/**
 * A URL source with `user:password@` is refused rather than used: the URL shows in process lists, shell
 * history and logs. The way to send credentials is a request header (`--source-header`).
 */
export function refuseUrlCredentials(spec: string): void {
  if (!hasCredentials(spec)) return;
  throw new CatalogIoError(
    'CONFIG_INVALID',
    `Credentials in a source URL are refused: ${displayName(spec)}. A URL shows in process lists, shell history and logs; send them as a header instead: --source-header "Authorization: Basic <base64 of user:password>", or the CATALOG_SOURCE_AUTHORIZATION environment variable (the header's value)`,
  );
}

function hasCredentials(spec: string): boolean {
  try {
    const url = new URL(spec);
    return url.username !== '' || url.password !== '';
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(spec);
  }
}
