// Redis URLs, checked at the edge and shown without their password. No Redis client here: the config
// code reads this on every command, and only runs with --redis load ioredis.
import { CatalogIoError } from '../errors.js';

/** Every key catalog-io writes starts with this, so a shared Redis stays readable. */
export const KEY_PREFIX = 'catalog-io';

/** The URL as it may be shown: the password replaced by `***`. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

export function checkRedisUrl(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL, so no part of it is known to be safe to show (`:password@host`): only its shape.
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${where} is not a URL (${url.length} characters${url.includes('@') ? ', with an @' : ''}): give redis://[:password@]host[:port]`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${where} must be redis:// or rediss://, found ${parsed.protocol}`,
    );
  }
  return url;
}
