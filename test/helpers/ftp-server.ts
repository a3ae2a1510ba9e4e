// A real FTP server (ftp-srv) on a loopback port for tests, serving a local folder to one user; with
// `tls`, explicit FTPS (AUTH TLS) with a self-signed certificate made by openssl at start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FtpSrv } from 'ftp-srv';

export interface FtpServerOptions {
  root: string;
  user: string;
  password: string;
  tls?: boolean;
}

export interface FtpServer {
  port: number;
  /** FTPS: the server's certificate (PEM file), for the client to trust. */
  certFile?: string;
  close(): Promise<void>;
}

const quiet = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child() {
    return quiet;
  },
};

export async function startFtpServer(options: FtpServerOptions): Promise<FtpServer> {
  let certDir: string | undefined;
  let tls: { key: Buffer; cert: Buffer } | undefined;
  if (options.tls) {
    certDir = mkdtempSync(join(tmpdir(), 'ftps-cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) };
  }
  const server = new FtpSrv({
    url: 'ftp://127.0.0.1:0',
    pasv_url: '127.0.0.1',
    pasv_min: 40000,
    pasv_max: 60000,
    anonymous: false,
    greeting: 'test server',
    log: quiet,
    ...(tls && { tls }),
  });
  server.on('login', ({ username, password }, resolve, reject) => {
    if (username === options.user && password === options.password) resolve({ root: options.root });
    else reject(new Error('bad login'));
  });
  await server.listen();
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo)
    .port;
  return {
    port,
    ...(certDir && { certFile: join(certDir, 'cert.pem') }),
    async close() {
      await server.close();
      if (certDir) rmSync(certDir, { recursive: true, force: true });
    },
  };
}
