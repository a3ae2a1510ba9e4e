// What makes a source "the same" for a resume. A local file: its path, its size and a sha256 of all
// its bytes (about 1.3 GB/s), taken when a run starts, so a resume that would skip rows of a changed
// file is refused before it skips any. A source read once (stdin, a URL, SFTP/FTP): its name, and the
// hash of the bytes read so far written into the journal at every flush (`SourceDigest`); a resume
// reads it again to a spool file and compares before any write (runner/import/resume.ts).
import { createHash, type Hash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { displayName } from '../readers/sources/redact.js';

export interface SourceIdentity {
  /** Absolute path, or the URL as it may be shown. */
  key: string;
  size?: number;
  /** sha256 of the whole file. */
  hash?: string;
  /** A source that cannot be read twice: checked against the journal's checkpoints instead. */
  stream?: true;
  /** Runs of earlier versions: a hash of the first and last MiB only (never trusted for a resume). */
  edgesHash?: string;
}

const READ_BYTES = 4 * 1024 * 1024;

/** Whether the source is read once: standard input, a URL, or a file on an SFTP/FTP server. */
export function isStreamSource(spec: string): boolean {
  return spec === '-' || /^(https?|s?ftp|ftps):\/\//i.test(spec);
}

export async function sourceIdentity(spec: string): Promise<SourceIdentity> {
  if (isStreamSource(spec)) return { key: spec === '-' ? '-' : displayName(spec), stream: true };
  const key = path.resolve(spec);
  const info = await stat(key);
  // A named pipe or a process substitution (`<(zcat feed.gz)`) is read once, as standard input is:
  // hashing it first would use up its bytes.
  if (!info.isFile()) return { key, stream: true };
  return { key, size: info.size, hash: await fileHash(key) };
}

/** sha256 of a whole file, read in 4 MiB pieces. */
export async function fileHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** Why a resume would read a different source, or undefined when it is the same (a stream: checked as read). */
export function identityChange(before: SourceIdentity, now: SourceIdentity): string | undefined {
  if (before.key !== now.key) return `the source was ${before.key}, not ${now.key}`;
  if (now.stream) return before.stream ? undefined : `${now.key} was read as a file then`;
  if (before.size !== now.size) return `${now.key} changed size (${before.size} bytes then, ${now.size} now)`;
  if (before.hash === undefined)
    return `${now.key} was not hashed whole when the run started (an earlier version of catalog-io), so it cannot be checked`;
  if (before.hash !== now.hash) return `${now.key} changed content since the run started`;
  return undefined;
}

/** The bytes of a source read once, hashed as they pass: `checkpoint()` is the hash of all so far. */
export class SourceDigest {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');

  readonly tap = (chunk: Buffer): void => {
    this.bytes += chunk.length;
    this.hash.update(chunk);
  };

  checkpoint(): { bytes: number; hash: string } {
    return { bytes: this.bytes, hash: this.hash.copy().digest('hex') };
  }
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** The tenant as a lock and a summary name it: a hash of its base URL and key id, never the key. */
export function tenantHash(catalogUrl: string, keyId: string): string {
  return createHash('sha256').update(`${catalogUrl}\n${keyId}`).digest('hex').slice(0, 16);
}
