// Looking at the first bytes of a source without losing them, and transparent gzip.
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CatalogIoError } from '../../errors.js';

/** Bytes looked at to detect gzip, format and encoding. */
export const HEAD_BYTES = 64 * 1024;

export interface Peeked {
  /** At least `minBytes` (or the whole source when shorter). */
  head: Buffer;
  /** All the bytes again, head included, still pulled on demand. */
  chunks: AsyncIterable<Buffer>;
}

export async function peek(chunks: AsyncIterable<Buffer>, minBytes = HEAD_BYTES): Promise<Peeked> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < minBytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    first.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(first);
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, chunks: replay() };
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

export async function* gunzip(chunks: AsyncIterable<Buffer>, name: string): AsyncGenerator<Buffer> {
  const unzip = pipeline(Readable.from(chunks), createGunzip(), () => {});
  try {
    for await (const chunk of unzip) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    throw new CatalogIoError(
      'SOURCE_UNREADABLE',
      `Cannot decompress ${name}: the gzip data is corrupt or truncated`,
    );
  }
}
