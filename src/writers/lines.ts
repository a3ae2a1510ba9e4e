// Line-oriented file output with backpressure: every writer of this folder that writes text goes through it.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { CatalogIoError } from '../errors.js';

export interface LineFile {
  write(text: string): Promise<void>;
  /**
   * Buffers `text`; returns a promise only when a chunk went to the disk and the caller must wait for it.
   * Row-by-row writers use it so a buffered line costs no promise.
   */
  append(text: string): Promise<void> | undefined;
  close(): Promise<void>;
}

export async function openLineFile(path: string): Promise<LineFile> {
  const stream: WriteStream = createWriteStream(path, { encoding: 'utf8', highWaterMark: WRITE_AHEAD_BYTES });
  let failure: Error | undefined;
  stream.on('error', (err) => {
    failure = err;
  });
  try {
    await once(stream, 'open');
  } catch (cause) {
    throw new CatalogIoError('CONFIG_INVALID', `Cannot write ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const check = () => {
    if (failure)
      throw new CatalogIoError('INTERNAL', `Writing ${path} failed: ${failure.message}`, { cause: failure });
  };
  // Lines are gathered into chunks of about 64 KB: one stream write per line costs more than the line.
  let pending = '';
  const flush = async () => {
    const chunk = pending;
    pending = '';
    if (chunk && !stream.write(chunk)) await once(stream, 'drain');
  };
  const append = (text: string): Promise<void> | undefined => {
    check();
    pending += text;
    return pending.length >= CHUNK_CHARS ? flush() : undefined;
  };
  return {
    async write(text) {
      await append(text);
    },
    append,
    async close() {
      check();
      await flush();
      stream.end();
      await once(stream, 'finish');
      check();
    },
  };
}

const CHUNK_CHARS = 64 * 1024;
/**
 * Chunks queued for the disk before a writer waits: the default (16 KB) is less than one chunk, so the
 * writer waited for every write to finish instead of working while the disk writes.
 */
const WRITE_AHEAD_BYTES = 1024 * 1024;

/** One CSV record (RFC 4180): a field is quoted when it holds the delimiter, a quote, CR/LF or edge spaces. */
export function csvLine(values: ReadonlyArray<string>, delimiter = ','): string {
  let line = '';
  for (let i = 0; i < values.length; i += 1) {
    if (i > 0) line += delimiter;
    line += csvField(values[i]!, delimiter);
  }
  return `${line}\r\n`;
}

/** The same record from named values, in the order of `keys` (no array of values per line). */
export function csvRecord<K extends string>(
  record: Record<K, string>,
  keys: ReadonlyArray<K>,
  delimiter = ',',
): string {
  let line = '';
  for (let i = 0; i < keys.length; i += 1) {
    if (i > 0) line += delimiter;
    line += csvField(record[keys[i]!], delimiter);
  }
  return `${line}\r\n`;
}

/** One field, quoted when it must be. One pass over the characters: this runs for every report cell. */
export function csvField(v: string, delimiter = ','): string {
  if (v.length === 0) return v;
  let quote = v.charCodeAt(0) === 32 || v.charCodeAt(v.length - 1) === 32;
  if (delimiter.length !== 1) quote ||= v.includes(delimiter);
  const d = delimiter.charCodeAt(0);
  for (let i = 0; !quote && i < v.length; i += 1) {
    const c = v.charCodeAt(i);
    quote = c === 34 || c === 10 || c === 13 || c === d;
  }
  return quote ? `"${v.replace(/"/g, '""')}"` : v;
}

/** `.csv`, `.jsonl` (or `.ndjson`), `.xlsx`: the format a report or rejects file is written in. */
export type FileFormat = 'csv' | 'jsonl' | 'xlsx';

export function formatFromExtension(path: string): FileFormat | undefined {
  const ext = path.toLowerCase().split('.').pop();
  if (ext === 'csv') return 'csv';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  if (ext === 'xlsx') return 'xlsx';
  return undefined;
}
