// The static checks on a source URL (no traffic): the spec's 400 table in a fixed order, the
// reference taken from the filename, and where the host stands (public, private, or one the
// sandbox may actually fetch from).
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { type AssetKind, isAllowedExtension, MAX_FILENAME_CHARS, MAX_URL_CHARS } from './formats.js';
import { msg } from './messages.js';

export interface SourceUrl {
  url: URL;
  /** The decoded filename of the URL path, extension included: the asset's reference. */
  reference: string;
  /** Extension as written, without the dot ('' when the filename has none). */
  ext: string;
}

export type HostStanding = 'fetchable' | 'outside';

export type UrlCheck = { ok: true; source: SourceUrl } | { ok: false; message: string };

/**
 * Checks a POST (creation) or PATCH (replacement) URL. A replacement may have any filename, so the
 * extension and filename-length rules apply to creation only.
 */
export function checkSourceUrl(
  value: unknown,
  kind: AssetKind,
  purpose: 'create' | 'replace',
  fetchableHosts: readonly string[],
): UrlCheck {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
    return fail(msg.urlRequired);
  if (typeof value !== 'string') return fail(msg.urlInvalid);
  if (value.length > MAX_URL_CHARS) return fail(msg.urlTooLong);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(msg.urlInvalid);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(msg.urlScheme);

  const lastSegment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  let filename: string;
  try {
    filename = decodeURIComponent(lastSegment);
  } catch {
    return fail(msg.urlInvalid);
  }
  const dot = filename.lastIndexOf('.');
  const ext = dot > 0 ? filename.slice(dot + 1) : '';
  if (purpose === 'create') {
    if (ext === '' || ext.includes('/')) return fail(msg.noExtension);
    if (!isAllowedExtension(kind, ext)) return fail(msg.extensionNotAllowed(kind, ext));
    if (dot > MAX_FILENAME_CHARS) return fail(msg.filenameTooLong);
  } else if (filename === '') {
    return fail(msg.noExtension);
  }
  if (!isFetchable(url, fetchableHosts) && isNonPublicHost(url.hostname))
    return fail(msg.hostNotAllowed(url.hostname));
  return { ok: true, source: { url, reference: filename, ext } };
}

/** Whether the sandbox may really contact this URL's host: its own asset host or an allowed one. */
export function hostStanding(url: URL, fetchableHosts: readonly string[]): HostStanding {
  return isFetchable(url, fetchableHosts) ? 'fetchable' : 'outside';
}

function isFetchable(url: URL, fetchableHosts: readonly string[]): boolean {
  const host = url.host.toLowerCase();
  return fetchableHosts.some((allowed) => {
    const a = allowed.toLowerCase();
    return a === host || a === url.hostname.toLowerCase();
  });
}

// Loopback, private, link-local (with the cloud metadata endpoint 169.254.169.254), unspecified.
const nonPublic = new BlockList();
nonPublic.addSubnet('0.0.0.0', 8, 'ipv4');
nonPublic.addSubnet('10.0.0.0', 8, 'ipv4');
nonPublic.addSubnet('127.0.0.0', 8, 'ipv4');
nonPublic.addSubnet('169.254.0.0', 16, 'ipv4');
nonPublic.addSubnet('172.16.0.0', 12, 'ipv4');
nonPublic.addSubnet('192.168.0.0', 16, 'ipv4');
nonPublic.addAddress('::', 'ipv6');
nonPublic.addAddress('::1', 'ipv6');
nonPublic.addSubnet('fc00::', 7, 'ipv6');
nonPublic.addSubnet('fe80::', 10, 'ipv6');

/** Host names are not resolved (the sandbox has no DNS); only `localhost` names count as non-public. */
export function isNonPublicHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return nonPublic.check(host, 'ipv4');
  if (isIPv6(host)) {
    // IPv4-mapped addresses (::ffff:127.0.0.1, which URL writes as ::ffff:7f00:1) are judged as IPv4.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped) {
      const hi = Number.parseInt(mapped[1]!, 16);
      const lo = Number.parseInt(mapped[2]!, 16);
      return nonPublic.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    return nonPublic.check(host, 'ipv6');
  }
  return false;
}

function fail(message: string): UrlCheck {
  return { ok: false, message };
}
