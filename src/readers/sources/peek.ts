// Looking at the first bytes of a source without losing them, and transparent gzip.
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CatalogIoError } from '../../errors.js';
import { formatSize, type InflateLimits } from '../options.js';

/** Bytes looked at to detect gzip, format and encoding. */
export const HEAD_BYTES = 64 * 1024;

export interface Peeked {
  /** At least `minBytes` (or the whole source when shorter). */
  head: Buffer;
  /** All the bytes again, head included, still pulled on demand. */
  chunks: AsyncIterable<Buffer>;
}

export async function peek(chunks: AsyncIterable<Buffer>, minBytes = HEAD_BYTES): Promise<Peeked> {
  const ahead = await readAhead(chunks, minBytes);
  const head = Buffer.concat(ahead.head);
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    yield* ahead.rest;
  }
  return { head, chunks: replay() };
}

export interface ReadAhead<T> {
  /** The first items, together at least `minLength` long unless the source ended first. */
  head: T[];
  ended: boolean;
  /** The items after `head`, still pulled on demand. */
  rest: AsyncIterable<T>;
}

/** Pulls the first items of a stream (bytes or text) for a look, without losing the rest. */
export async function readAhead<T extends { length: number }>(
  items: AsyncIterable<T>,
  minLength: number,
): Promise<ReadAhead<T>> {
  const iterator = items[Symbol.asyncIterator]();
  const head: T[] = [];
  let length = 0;
  let ended = false;
  while (length < minLength) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  async function* rest(): AsyncGenerator<T> {
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, ended, rest: rest() };
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The inflated bytes of a gzip stream, bounded: past `limits.total` bytes, or past the ratio once the
 * output is large, it stops with SOURCE_TOO_LARGE (gzip gives no trustworthy size up front, so the
 * bytes are counted as they come).
 */
export async function* gunzip(
  chunks: AsyncIterable<Buffer>,
  name: string,
  limits: InflateLimits,
): AsyncGenerator<Buffer> {
  let packed = 0;
  async function* countPacked(): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      packed += chunk.length;
      yield chunk;
    }
  }
  const unzip = pipeline(Readable.from(countPacked()), createGunzip(), () => {});
  let inflated = 0;
  const tooLarge = (what: string) =>
    new CatalogIoError(
      'SOURCE_TOO_LARGE',
      `Compressed source too large: ${name} ${what}. A gzip bomb? If the file is genuine, raise --max-inflate (now ${formatSize(limits.total)})`,
    );
  try {
    for await (const chunk of unzip) {
      inflated += (chunk as Buffer).length;
      if (inflated > limits.total) {
        throw tooLarge(`inflates to more than ${formatSize(limits.total)}`);
      }
      if (inflated > limits.ratioFloor && inflated > packed * limits.ratio) {
        throw tooLarge(
          `inflates to ${formatSize(inflated)} from ${formatSize(packed)} (${Math.round(inflated / Math.max(packed, 1))} times; at most ${limits.ratio} times past ${formatSize(limits.ratioFloor)})`,
        );
      }
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    throw new CatalogIoError(
      'SOURCE_UNREADABLE',
      `Cannot decompress ${name}: the gzip data is corrupt or truncated`,
    );
  } finally {
    unzip.destroy();
  }
}
