// Shared helpers for the reader tests: temp files, collecting rows, matching error codes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/errors.js';
import { CatalogIoError } from '../../src/errors.js';
import {
  type OpenedSource,
  openSource,
  type ReaderOptions,
  type SourceRow,
} from '../../src/readers/index.js';

export { REALWORLD } from '../helpers/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-io-readers-'));

/** A path in the tests' temporary folder, for a writer that makes the file itself. */
export function tempPath(name: string): string {
  return join(dir, name);
}

/** Writes a temporary file and returns its path. */
export function tempFile(name: string, content: string | Buffer | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

export async function collect(source: OpenedSource): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for await (const row of source.rows) rows.push(row);
  return rows;
}

/** Opens and reads a whole source (small test files only). */
export async function readAll(spec: string, options: ReaderOptions = {}) {
  const source = await openSource(spec, options);
  const rows = await collect(source);
  return { source, rows };
}

/** The same bytes as a stream cut into pieces of `size` bytes: read through `-` (stdin). */
export function chunked(bytes: Buffer, size: number): Readable {
  function* pieces() {
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  }
  return Readable.from(pieces(), { objectMode: false });
}

/** Awaits a promise (or a function) that must fail with a CatalogIoError of this code. */
export async function expectCode(action: Promise<unknown> | (() => Promise<unknown>), code: ErrorCode) {
  let error: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (err) {
    error = err;
  }
  expect(error, `expected an error ${code}`).toBeInstanceOf(CatalogIoError);
  expect((error as CatalogIoError).code).toBe(code);
  return error as CatalogIoError;
}

/** Plain object view of a row's cells (they have a null prototype). */
export function plain(row: SourceRow | undefined): Record<string, unknown> {
  return { ...row?.cells };
}
