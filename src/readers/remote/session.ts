// One connection to an SFTP or FTP server, as the few things a feed source needs: list a folder,
// stream a file, move it. Credentials come from the environment or the config file (the CLI puts the
// file's in the environment: config/remote-settings.ts), never from the address. An SFTP server's
// host key must be pinned or known (known-hosts.ts), as ssh requires.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { CatalogIoError } from '../../errors.js';
import { passwordVariable, type RemoteAddress } from './address.js';
import {
  checkKnownHosts,
  defaultKnownHostsFiles,
  fingerprint,
  type HostKeyVerdict,
  keyType,
} from './known-hosts.js';

export interface RemoteFile {
  name: string;
  size: number;
  /** Milliseconds since the epoch, when the server says. */
  modifiedAt: number | undefined;
}

export interface RemoteSession {
  /** The plain files of a folder (not folders or links). */
  list(dir: string): Promise<RemoteFile[]>;
  /** Size and last modification of one file; SOURCE_NOT_FOUND when there is none. */
  stat(path: string): Promise<RemoteFile>;
  /** The file's bytes, streamed: nothing is read ahead beyond the stream's own buffer. */
  read(path: string): Readable;
  /** Makes `dir` (and its parents) when missing. */
  ensureDir(dir: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  rename(from: string, to: string): Promise<void>;
  close(): Promise<void>;
}

/** Environment variables read for remote sources. */
export const REMOTE_ENV = {
  sftpPassword: 'CATALOG_IO_SFTP_PASSWORD',
  sftpKey: 'CATALOG_IO_SFTP_KEY',
  sftpPassphrase: 'CATALOG_IO_SFTP_PASSPHRASE',
  sftpHostKey: 'CATALOG_IO_SFTP_HOST_KEY',
  sftpKnownHosts: 'CATALOG_IO_SFTP_KNOWN_HOSTS',
  ftpPassword: 'CATALOG_IO_FTP_PASSWORD',
  ftpsCa: 'CATALOG_IO_FTPS_CA',
} as const;

const CONNECT_TIMEOUT_MS = 20_000;

export async function openSession(
  address: RemoteAddress,
  display: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RemoteSession> {
  return address.protocol === 'sftp' ? openSftp(address, display, env) : openFtp(address, display, env);
}

async function openSftp(address: RemoteAddress, display: string, env: NodeJS.ProcessEnv) {
  const { default: SftpClient } = await import('ssh2-sftp-client');
  const client = new SftpClient('catalog-io');
  const keyFile = env[REMOTE_ENV.sftpKey];
  const password = env[REMOTE_ENV.sftpPassword];
  const hostKey = env[REMOTE_ENV.sftpHostKey]?.trim() || undefined;
  const knownHosts = env[REMOTE_ENV.sftpKnownHosts]?.trim()
    ? [env[REMOTE_ENV.sftpKnownHosts]!.trim()]
    : defaultKnownHostsFiles();
  if (!address.user) {
    throw new CatalogIoError('CONFIG_INVALID', `${display} names no user: write sftp://USER@host/path`);
  }
  let privateKey: Buffer | undefined;
  if (keyFile) {
    try {
      privateKey = readFileSync(keyFile);
    } catch (err) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `Cannot read the SSH key ${REMOTE_ENV.sftpKey}=${keyFile}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
    }
  }
  if (!privateKey && !password) {
    throw new CatalogIoError(
      'CONFIG_MISSING',
      `No credentials for ${display}: set ${REMOTE_ENV.sftpKey} (a private key file) or ${REMOTE_ENV.sftpPassword}`,
    );
  }
  // The server's key, and why it was refused: said to the person once the connection failed.
  let refused: { key: Buffer; verdict: HostKeyVerdict } | undefined;
  const verify = (key: Buffer): boolean => {
    const verdict: HostKeyVerdict = hostKey
      ? fingerprint(key) === hostKey
        ? { known: true }
        : { known: false, reason: 'changed', where: REMOTE_ENV.sftpHostKey }
      : checkKnownHosts(knownHosts, address.host, address.port, key);
    if (!verdict.known) refused = { key, verdict };
    return verdict.known;
  };
  try {
    await client.connect({
      host: address.host,
      port: address.port,
      username: address.user,
      readyTimeout: CONNECT_TIMEOUT_MS,
      ...(privateKey && { privateKey }),
      ...(privateKey && env[REMOTE_ENV.sftpPassphrase] && { passphrase: env[REMOTE_ENV.sftpPassphrase] }),
      ...(password && { password }),
      hostVerifier: verify,
    });
  } catch (err) {
    await client.end().catch(() => undefined);
    if (refused) throw hostKeyError(refused.key, refused.verdict, display, address, knownHosts);
    throw connectError(err, display, 'sftp');
  }
  const session: RemoteSession = {
    async list(dir) {
      const entries = await client.list(dir).catch((err: unknown) => {
        throw listError(err, dir, display);
      });
      return entries
        .filter((e) => e.type === '-')
        .map((e) => ({ name: e.name, size: e.size, modifiedAt: e.modifyTime }));
    },
    async stat(path) {
      const info = await client.stat(path).catch((err: unknown) => {
        throw readError(err, path, display);
      });
      if (!info.isFile) throw new CatalogIoError('SOURCE_UNREADABLE', `Not a file: ${path} on ${display}`);
      return { name: path.slice(path.lastIndexOf('/') + 1), size: info.size, modifiedAt: info.modifyTime };
    },
    read(path) {
      return client.createReadStream(path) as unknown as Readable;
    },
    async ensureDir(dir) {
      if (!(await client.exists(dir))) await client.mkdir(dir, true);
    },
    async exists(path) {
      return (await client.exists(path)) !== false;
    },
    async rename(from, to) {
      await client.rename(from, to);
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
  return session;
}

async function openFtp(address: RemoteAddress, display: string, env: NodeJS.ProcessEnv) {
  const { Client } = await import('basic-ftp');
  const client = new Client(CONNECT_TIMEOUT_MS);
  const caFile = env[REMOTE_ENV.ftpsCa];
  let ca: Buffer | undefined;
  if (caFile) {
    try {
      ca = readFileSync(caFile);
    } catch (err) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `Cannot read the certificate ${REMOTE_ENV.ftpsCa}=${caFile}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
    }
  }
  try {
    await client.access({
      host: address.host,
      port: address.port,
      user: address.user,
      password: env[REMOTE_ENV.ftpPassword] ?? (address.user === 'anonymous' ? 'anonymous@' : ''),
      secure: address.protocol === 'ftps',
      ...(address.protocol === 'ftps' && {
        secureOptions: { ...(ca && { ca }), ...(!isIP(address.host) && { servername: address.host }) },
      }),
    });
  } catch (err) {
    client.close();
    throw connectError(err, display, address.protocol);
  }
  // basic-ftp runs one command at a time on its control connection: calls are queued here.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };
  const session: RemoteSession = {
    list: (dir) =>
      serial(async () => {
        const entries = await client.list(dir).catch((err: unknown) => {
          throw listError(err, dir, display);
        });
        return entries
          .filter((e) => e.isFile)
          .map((e) => ({ name: e.name, size: e.size, modifiedAt: e.modifiedAt?.getTime() }));
      }),
    stat: (path) =>
      serial(async () => {
        const size = await client.size(path).catch((err: unknown) => {
          throw readError(err, path, display);
        });
        // MDTM is optional in FTP: a server without it gives no date.
        const modified = await client.lastMod(path).catch(() => undefined);
        return { name: path.slice(path.lastIndexOf('/') + 1), size, modifiedAt: modified?.getTime() };
      }),
    read(path) {
      const pass = new PassThrough({ highWaterMark: 256 * 1024 });
      serial(() => client.downloadTo(pass, path)).catch((err: unknown) => {
        pass.destroy(readError(err, path, display));
      });
      return pass;
    },
    ensureDir: (dir) =>
      serial(async () => {
        await client.ensureDir(dir);
        await client.cd('/');
      }),
    exists: (path) =>
      serial(async () => {
        try {
          await client.size(path);
          return true;
        } catch {
          return false;
        }
      }),
    rename: (from, to) =>
      serial(async () => {
        await client.rename(from, to);
      }),
    async close() {
      client.close();
    },
  };
  return session;
}

/** A host key refused: its fingerprint to check and pin, and where the known one is. */
function hostKeyError(
  key: Buffer,
  verdict: HostKeyVerdict,
  display: string,
  address: RemoteAddress,
  knownHosts: string[],
): CatalogIoError {
  const shown = `${fingerprint(key)} (${keyType(key)})`;
  const reason = verdict.known ? 'unknown' : verdict.reason;
  const where = verdict.known ? undefined : verdict.where;
  if (reason === 'revoked') {
    return new CatalogIoError(
      'SOURCE_UNREADABLE',
      `Host key of ${display} is revoked (${where}): ${shown}. Refusing to connect`,
    );
  }
  if (reason === 'changed') {
    return new CatalogIoError(
      'SOURCE_UNREADABLE',
      `Host key of ${display} does not match ${where === REMOTE_ENV.sftpHostKey ? REMOTE_ENV.sftpHostKey : `the one in ${where}`}: the server offered ${shown}. Refusing to connect: the server's key changed, or someone is in between; check with its administrator`,
    );
  }
  const scan = `ssh-keyscan${address.port === 22 ? '' : ` -p ${address.port}`} ${address.host}`;
  return new CatalogIoError(
    'SOURCE_UNREADABLE',
    `Host key of ${display} is not known: ${shown}. Check it with the server's administrator, then pin it with ${REMOTE_ENV.sftpHostKey}=${fingerprint(key)} or add it to ${knownHosts[0]} (${scan} >> ${knownHosts[0]}; --known-hosts FILE reads another file)`,
  );
}

function connectError(err: unknown, display: string, protocol: string) {
  const e = err as { code?: string | number; level?: string; message?: string };
  const text = String(e.message ?? err);
  if (e.level === 'client-authentication' || /authentication|login|530/i.test(text)) {
    const hint =
      protocol === 'sftp'
        ? `check ${REMOTE_ENV.sftpKey} or ${REMOTE_ENV.sftpPassword}`
        : `check ${passwordVariable('ftp')}`;
    return new CatalogIoError('SOURCE_UNREADABLE', `Login refused by ${display}: ${hint}`);
  }
  const code = typeof e.code === 'string' ? e.code : /\b(E[A-Z]{4,})\b/.exec(text)?.[1];
  return new CatalogIoError(
    'SOURCE_UNREADABLE',
    `Cannot connect to ${display}: ${code ?? text.replace(/^connect: /, '')}`,
  );
}

function listError(err: unknown, dir: string, display: string): CatalogIoError {
  const text = String((err as Error).message ?? err);
  if (/no such|not found|550|ENOENT/i.test(text)) {
    return new CatalogIoError('SOURCE_NOT_FOUND', `Folder not found: ${dir} on ${display}`);
  }
  return new CatalogIoError('SOURCE_UNREADABLE', `Cannot list ${dir} on ${display}: ${text}`);
}

export function readError(err: unknown, path: string, display: string): CatalogIoError {
  if (err instanceof CatalogIoError) return err;
  const e = err as { code?: string | number; message?: string };
  const text = String(e.message ?? err);
  if (e.code === 2 || e.code === 'ENOENT' || /no such|not found|550/i.test(text)) {
    return new CatalogIoError('SOURCE_NOT_FOUND', `File not found: ${path} on ${display}`);
  }
  return new CatalogIoError('SOURCE_UNREADABLE', `Cannot read ${path} on ${display}: ${text}`);
}
