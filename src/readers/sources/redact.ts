// Source names as they may be shown to people: a URL loses its user:password and the values of
// query parameters that look like secrets (src/secrets.ts), so error messages and reports never leak them.
import { CatalogIoError } from '../../errors.js';
import { redactUrl } from '../../secrets.js';

/** The source as it may appear in messages: credentials and secret-looking query values replaced by `***`. */
export function displayName(spec: string): string {
  if (!/^https?:\/\//i.test(spec)) return spec;
  return redactUrl(spec);
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
