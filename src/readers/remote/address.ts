// sftp://, ftp:// and ftps:// source addresses: who to connect to, which folder, which file (or
// which pattern of names, whose newest match is read). Passwords never come from the address: a URL
// ends up in shell history, cron lines, reports and job queues; they come from the environment.
import { CatalogIoError } from '../../errors.js';

export type RemoteProtocol = 'sftp' | 'ftp' | 'ftps';

export interface RemoteAddress {
  protocol: RemoteProtocol;
  host: string;
  port: number;
  user: string;
  /** The folder, absolute (`/incoming`); `/` for the root. */
  dir: string;
  /** The file name, or a pattern with `*` and `?` (`feed-*.csv`). */
  name: string;
}

const DEFAULT_PORTS: Record<RemoteProtocol, number> = { sftp: 22, ftp: 21, ftps: 21 };

export function isRemote(spec: string): boolean {
  return /^(s?ftp|ftps):\/\//i.test(spec);
}

export function parseRemote(spec: string): RemoteAddress {
  let url: URL;
  try {
    // `?` is a pattern's one-character wildcard here, and `#` a character of a name: neither starts a
    // query or fragment.
    url = new URL(spec.replace(/[?#]/g, (c) => encodeURIComponent(c)));
  } catch {
    throw new CatalogIoError('CONFIG_INVALID', `Not a valid address: ${redactRemote(spec)}`);
  }
  const protocol = url.protocol.slice(0, -1).toLowerCase() as RemoteProtocol;
  if (url.password) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${redactRemote(spec)} carries a password: give it in ${passwordVariable(protocol)} instead (a URL ends up in logs and job queues)`,
    );
  }
  const path = decodeURIComponent(url.pathname);
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (!name) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${redactRemote(spec)} names a folder: end it with a file name or a pattern such as feed-*.csv`,
    );
  }
  return {
    protocol,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : DEFAULT_PORTS[protocol],
    user: decodeURIComponent(url.username) || (protocol === 'sftp' ? '' : 'anonymous'),
    dir: path.slice(0, slash) || '/',
    name,
  };
}

/** The address of one file in the same place (a pattern's match, the file after its move). */
export function remoteUrl(address: RemoteAddress, dir: string, name: string): string {
  const user = address.user ? `${encodeURIComponent(address.user)}@` : '';
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  const port = address.port === DEFAULT_PORTS[address.protocol] ? '' : `:${address.port}`;
  const path = joinPath(dir, name).split('/').map(encodeURIComponent).join('/');
  return `${address.protocol}://${user}${host}${port}${path}`;
}

export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

export function isPattern(name: string): boolean {
  return /[*?]/.test(name);
}

/** `feed-*.csv` as a RegExp over whole names: `*` any run of characters, `?` one character. */
export function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

export function passwordVariable(protocol: RemoteProtocol): string {
  return protocol === 'sftp' ? 'CATALOG_IO_SFTP_PASSWORD' : 'CATALOG_IO_FTP_PASSWORD';
}

/** The address as it may be shown: any password replaced by `***`. */
export function redactRemote(spec: string): string {
  return spec.replace(/^([a-z]+:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}
