// What makes a source "the same" for a resume: its path or URL, its size, and a hash of its first and
// last MiB (a file only: a URL or stdin is not read twice to be compared), plus the profile's hash.
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { displayName } from '../readers/sources/redact.js';

export interface SourceIdentity {
  /** Absolute path, or the URL as it may be shown. */
  key: string;
  size?: number;
  /** sha256 of the first and last MiB. */
  edgesHash?: string;
}

const EDGE = 1024 * 1024;

export async function sourceIdentity(spec: string): Promise<SourceIdentity> {
  if (spec === '-') return { key: '-' };
  if (/^https?:\/\//i.test(spec)) return { key: displayName(spec) };
  const key = path.resolve(spec);
  const { size } = await stat(key);
  const hash = createHash('sha256');
  const file = await open(key, 'r');
  try {
    const head = Buffer.alloc(Math.min(EDGE, size));
    await file.read(head, 0, head.length, 0);
    hash.update(head);
    if (size > EDGE) {
      const tail = Buffer.alloc(Math.min(EDGE, size - EDGE));
      await file.read(tail, 0, tail.length, size - tail.length);
      hash.update(tail);
    }
  } finally {
    await file.close();
  }
  return { key, size, edgesHash: hash.digest('hex') };
}

/** Why a resume would read a different source, or undefined when it is the same. */
export function identityChange(before: SourceIdentity, now: SourceIdentity): string | undefined {
  if (before.key !== now.key) return `the source was ${before.key}, not ${now.key}`;
  if (before.size !== now.size) return `${now.key} changed size (${before.size} bytes then, ${now.size} now)`;
  if (before.edgesHash !== now.edgesHash) return `${now.key} changed content since the run started`;
  return undefined;
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** The tenant as a lock and a summary name it: a hash of its base URL and key id, never the key. */
export function tenantHash(catalogUrl: string, keyId: string): string {
  return createHash('sha256').update(`${catalogUrl}\n${keyId}`).digest('hex').slice(0, 16);
}
