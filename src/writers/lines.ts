// Line-oriented file output with backpressure: every writer of this folder that writes text goes through it.

import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import iconv from 'iconv-lite';
import { openOutputStream } from '../files.js';

export interface LineFile {
  write(text: string): Promise<void>;
  /**
   * Buffers `text`; returns a promise only when a chunk went to the disk and the caller must wait for it.
   * Row-by-row writers use it so a buffered line costs no promise.
   */
  append(text: string): Promise<void> | undefined;
  /** UTF-8 files: the chunk being filled, for lines written as bytes (no string per line). */
  bytes?: ByteTail;
  close(): Promise<void>;
}

/**
 * The end of a UTF-8 file's current chunk. A hot loop asks for `room(n)` (which may start a new
 * chunk), writes at most `n` bytes into `chunk` from `at`, and moves `at` past them.
 */
export interface ByteTail {
  /** A promise only when the caller must wait for the disk; the room is there either way. */
  room(bytes: number): Promise<void> | undefined;
  chunk: Buffer;
  at: number;
}

export interface LineFileOptions {
  /** Text encoding of the file (default UTF-8); any encoding iconv-lite knows (`windows-1252`, `utf-16le`). */
  encoding?: string;
  /** Start with a byte order mark (UTF-8, UTF-16). */
  bom?: boolean;
}

export async function openLineFile(path: string, options: LineFileOptions = {}): Promise<LineFile> {
  const { out: stream, failure } = await openOutputStream(path, WRITE_AHEAD_BYTES);
  // A write that fails later (a full disk) is said as such, whichever call sees it first.
  const check = () => failure.check();
  const until: Until = (event) => failure.until(once(stream, event)).then(() => undefined);
  const encoding = (options.encoding ?? 'utf-8').toLowerCase();
  const file =
    encoding === 'utf-8' || encoding === 'utf8'
      ? utf8Lines(stream, check, until)
      : encodedLines(stream, check, until, encoding);
  if (options.bom) await file.write('\uFEFF');
  return file;
}

/**
 * UTF-8: lines are encoded straight into chunks of CHUNK_BYTES, written whole. Gathering strings and
 * encoding them later cost a string per line, the joined text and a copy; a chunk is only filled.
 */
function utf8Lines(stream: WriteStream, check: () => void, until: Until): LineFile {
  // Chunks the stream has written, filled again: fresh memory for every chunk cost the system a page
  // fault per 4 KB of the report, and the collector an outside allocation to account for.
  const written: Buffer[] = [];
  const tail: ByteTail = {
    chunk: Buffer.allocUnsafeSlow(CHUNK_BYTES),
    at: 0,
    room(bytes) {
      check();
      if (bytes <= tail.chunk.length - tail.at) return undefined;
      const full = flush();
      if (bytes > tail.chunk.length) tail.chunk = Buffer.allocUnsafeSlow(bytes);
      return full;
    },
  };
  const flush = (): Promise<void> | undefined => {
    if (tail.at === 0) return undefined;
    const chunk = tail.chunk;
    const full = chunk.subarray(0, tail.at);
    tail.chunk = written.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    tail.at = 0;
    const more = stream.write(full, () => {
      if (chunk.length === CHUNK_BYTES && written.length < SPARE_CHUNKS) written.push(chunk);
    });
    return more ? undefined : until('drain');
  };
  // A UTF-16 unit takes at most 3 bytes in UTF-8 (a surrogate pair: 4 for 2 units).
  const append = (text: string): Promise<void> | undefined => {
    const wait = tail.room(text.length * 3);
    tail.at += tail.chunk.write(text, tail.at);
    return wait;
  };
  return lineFile(stream, check, until, append, flush, tail);
}

/** Other encodings (a rejects file in the source's): lines gathered as text, encoded a chunk at a time. */
function encodedLines(stream: WriteStream, check: () => void, until: Until, encoding: string): LineFile {
  // Chunks hold whole lines, so a character is never cut between two encodings.
  let pending = '';
  const flush = async () => {
    const chunk = pending;
    pending = '';
    if (chunk && !stream.write(iconv.encode(chunk, encoding))) await until('drain');
  };
  const append = (text: string): Promise<void> | undefined => {
    check();
    pending += text;
    return pending.length >= CHUNK_CHARS ? flush() : undefined;
  };
  return lineFile(stream, check, until, append, flush);
}

/** The stream's next `drain` or `finish`; a write error instead is the file's OUTPUT_FAILED. */
type Until = (event: 'drain' | 'finish') => Promise<void>;

/** A LineFile from how it appends a line and how it hands what it holds to the stream. */
function lineFile(
  stream: WriteStream,
  check: () => void,
  until: Until,
  append: (text: string) => Promise<void> | undefined,
  flush: () => Promise<void> | undefined,
  bytes?: ByteTail,
): LineFile {
  return {
    ...(bytes && { bytes }),
    async write(text) {
      await append(text);
    },
    append,
    async close() {
      check();
      await flush();
      stream.end();
      await until('finish');
      check();
    },
  };
}

/** Bytes of a UTF-8 chunk: one stream write per line costs more than the line. */
const CHUNK_BYTES = 256 * 1024;
/** Written chunks kept to be filled again: as many as the write-ahead holds, and one being filled. */
const SPARE_CHUNKS = 5;
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
