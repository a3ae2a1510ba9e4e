// Line-oriented file output with backpressure: every writer of this folder that writes text goes through it.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import iconv from 'iconv-lite';
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

export interface LineFileOptions {
  /** Text encoding of the file (default UTF-8); any encoding iconv-lite knows (`windows-1252`, `utf-16le`). */
  encoding?: string;
  /** Start with a byte order mark (UTF-8, UTF-16). */
  bom?: boolean;
}

export async function openLineFile(path: string, options: LineFileOptions = {}): Promise<LineFile> {
  const stream: WriteStream = createWriteStream(path, { highWaterMark: WRITE_AHEAD_BYTES });
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
  const encoding = (options.encoding ?? 'utf-8').toLowerCase();
  const utf8 = encoding === 'utf-8' || encoding === 'utf8';
  // Chunks hold whole lines, so a character is never cut between two encodings.
  const bytes = (text: string): Buffer | string => (utf8 ? text : iconv.encode(text, encoding));
  // Lines are gathered into chunks of about 64 KB: one stream write per line costs more than the line.
  let pending = options.bom ? '\uFEFF' : '';
  const flush = async () => {
    const chunk = pending;
    pending = '';
    if (chunk && !stream.write(bytes(chunk))) await once(stream, 'drain');
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

/** `.csv`, `.jsonl` (or `.ndjson`), `.xlsx`: the format a report or rejects file is written in. */
export type FileFormat = 'csv' | 'jsonl' | 'xlsx';

export function formatFromExtension(path: string): FileFormat | undefined {
  const ext = path.toLowerCase().split('.').pop();
  if (ext === 'csv') return 'csv';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  if (ext === 'xlsx') return 'xlsx';
  return undefined;
}
