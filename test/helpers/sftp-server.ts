// A real SFTP server on a loopback port for tests (the ssh2 package's server mode), serving a local
// folder: password and public-key logins, and the requests a feed source makes (stat, list, read,
// mkdir, rename). A host key is generated at start; its fingerprint is handed out for pinning.
import { createHash } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import ssh2, { type AuthContext, type Connection, type SFTPWrapper } from 'ssh2';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

export interface SftpServerOptions {
  root: string;
  user: string;
  password?: string;
  /** OpenSSH public key line (`ssh-ed25519 AAAA...`) allowed to log in. */
  publicKey?: string;
}

export interface SftpServer {
  port: number;
  /** `SHA256:...` of the host key. */
  hostFingerprint: string;
  /** The host key as a known_hosts line: `[127.0.0.1]:PORT ssh-ed25519 AAAA...`. */
  knownHostsLine: string;
  /** Bytes handed out by READ requests so far (streaming checks). */
  bytesServed(): number;
  /** From now on READ requests get no answer, as from a server that died mid-transfer. */
  stallReads(stalled: boolean): void;
  close(): Promise<void>;
}

/**
 * An ed25519 key pair ssh2 reads back: about 1 in 250 of the pairs its own generator makes, its parser
 * refuses ("Malformed OpenSSH private key"), which made the SFTP tests fail now and then.
 */
export function generateKeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error))
      return { private: pair.private, public: pair.public };
  }
}

export async function startSftpServer(options: SftpServerOptions): Promise<SftpServer> {
  const host = generateKeyPair();
  const hostKey = utils.parseKey(host.private);
  if (hostKey instanceof Error) throw hostKey;
  const hostPublic = (Array.isArray(hostKey) ? hostKey[0] : hostKey)!.getPublicSSH();
  const allowed = options.publicKey ? utils.parseKey(options.publicKey) : undefined;
  const root = resolve(options.root);
  let served = 0;
  let stalled = false;
  const connections = new Set<Connection>();

  const server = new Server({ hostKeys: [host.private] }, (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (ctx: AuthContext) => {
      if (ctx.username !== options.user) return ctx.reject();
      if (ctx.method === 'password' && options.password !== undefined && ctx.password === options.password)
        return ctx.accept();
      if (ctx.method === 'publickey' && allowed && !(allowed instanceof Error)) {
        const key = Array.isArray(allowed) ? allowed[0]! : allowed;
        if (ctx.key.algo !== key.type || !ctx.key.data.equals(key.getPublicSSH())) return ctx.reject();
        if (!ctx.signature || !ctx.blob) return ctx.accept();
        return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true ? ctx.accept() : ctx.reject();
      }
      return ctx.reject(['password', 'publickey']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        acceptSession().on('sftp', (acceptSftp) =>
          serveSftp(
            acceptSftp(),
            root,
            (n) => (served += n),
            () => stalled,
          ),
        );
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hostFingerprint: `SHA256:${createHash('sha256').update(hostPublic).digest('base64').replace(/=+$/, '')}`,
    knownHostsLine: `[127.0.0.1]:${port} ssh-ed25519 ${hostPublic.toString('base64')}`,
    bytesServed: () => served,
    stallReads: (on) => {
      stalled = on;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const c of connections) c.end();
        server.close(() => done());
      }),
  };
}

type Handle = { kind: 'file'; file: fs.FileHandle } | { kind: 'dir'; path: string; listed: boolean };

function serveSftp(
  sftp: SFTPWrapper,
  root: string,
  count: (bytes: number) => void,
  isStalled: () => boolean,
): void {
  const handles = new Map<number, Handle>();
  let next = 0;
  const local = (path: string) => join(root, resolve('/', path));
  const handleOf = (buffer: Buffer) => handles.get(buffer.readUInt32BE(0));
  const newHandle = (h: Handle) => {
    const id = next++;
    handles.set(id, h);
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32BE(id, 0);
    return buffer;
  };
  const fail = (reqid: number, err: unknown) =>
    sftp.status(
      reqid,
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : STATUS_CODE.FAILURE,
    );
  const attrs = (s: Stats) => ({
    mode: s.mode,
    uid: 0,
    gid: 0,
    size: s.size,
    atime: Math.floor(s.atimeMs / 1000),
    mtime: Math.floor(s.mtimeMs / 1000),
  });
  const longname = (name: string, s: Stats) =>
    `${s.isDirectory() ? 'd' : '-'}rw-r--r-- 1 user group ${s.size} Jan 1 00:00 ${name}`;

  sftp.on('REALPATH', (reqid, path) => {
    const full = resolve('/', path);
    sftp.name(reqid, [{ filename: full, longname: full, attrs: {} as never }]);
  });
  for (const op of ['STAT', 'LSTAT'] as const) {
    sftp.on(op, (reqid: number, path: string) => {
      fs.stat(local(path)).then(
        (s) => sftp.attrs(reqid, attrs(s)),
        (err) => fail(reqid, err),
      );
    });
  }
  sftp.on('OPEN', (reqid, path) => {
    fs.open(local(path), 'r').then(
      (file) => sftp.handle(reqid, newHandle({ kind: 'file', file })),
      (err) => fail(reqid, err),
    );
  });
  sftp.on('FSTAT', (reqid, handle) => {
    const h = handleOf(handle);
    if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE);
    h.file.stat().then(
      (s) => sftp.attrs(reqid, attrs(s)),
      (err) => fail(reqid, err),
    );
  });
  sftp.on('READ', (reqid, handle, offset, length) => {
    if (isStalled()) return;
    const h = handleOf(handle);
    if (h?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE);
    const buffer = Buffer.alloc(length);
    h.file.read(buffer, 0, length, offset).then(
      ({ bytesRead }) => {
        if (bytesRead === 0) return sftp.status(reqid, STATUS_CODE.EOF);
        count(bytesRead);
        sftp.data(reqid, buffer.subarray(0, bytesRead));
      },
      (err) => fail(reqid, err),
    );
  });
  sftp.on('OPENDIR', (reqid, path) => {
    fs.stat(local(path)).then(
      (s) =>
        s.isDirectory()
          ? sftp.handle(reqid, newHandle({ kind: 'dir', path: local(path), listed: false }))
          : sftp.status(reqid, STATUS_CODE.FAILURE),
      (err) => fail(reqid, err),
    );
  });
  sftp.on('READDIR', (reqid, handle) => {
    const h = handleOf(handle);
    if (h?.kind !== 'dir') return sftp.status(reqid, STATUS_CODE.FAILURE);
    if (h.listed) return sftp.status(reqid, STATUS_CODE.EOF);
    h.listed = true;
    (async () => {
      const names = await fs.readdir(h.path);
      const entries = [];
      for (const name of names) {
        const s = await fs.stat(join(h.path, name));
        entries.push({ filename: name, longname: longname(name, s), attrs: attrs(s) });
      }
      if (entries.length === 0) return sftp.status(reqid, STATUS_CODE.EOF);
      sftp.name(reqid, entries);
    })().catch((err) => fail(reqid, err));
  });
  sftp.on('CLOSE', (reqid, handle) => {
    const id = handle.readUInt32BE(0);
    const h = handles.get(id);
    handles.delete(id);
    if (h?.kind === 'file') void h.file.close();
    sftp.status(reqid, STATUS_CODE.OK);
  });
  sftp.on('MKDIR', (reqid, path) => {
    fs.mkdir(local(path)).then(
      () => sftp.status(reqid, STATUS_CODE.OK),
      (err) => fail(reqid, err),
    );
  });
  sftp.on('RENAME', (reqid, from, to) => {
    fs.rename(local(from), local(to)).then(
      () => sftp.status(reqid, STATUS_CODE.OK),
      (err) => fail(reqid, err),
    );
  });
}
