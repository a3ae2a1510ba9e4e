// Local files and stdin as byte sources.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CatalogIoError } from '../../errors.js';
import { type ByteSource, counted } from './byte-source.js';

/** What the readers get at a time: the text decoder is fastest on chunks of this size. */
const CHUNK_BYTES = 64 * 1024;
/**
 * What one disk read takes: three chunks, so that the next read is done while they are parsed (with one
 * chunk per read, a reader waited for the disk about a tenth of the time).
 */
const READ_BYTES = 3 * CHUNK_BYTES;

export async function openFile(path: string): Promise<ByteSource> {
  const size = await readableSize(path);
  const stream = createReadStream(path, { highWaterMark: READ_BYTES });
  return { ...fromStream(stream, path, path, size, CHUNK_BYTES), path };
}

/** The size of a local file that can be read, or the coded error a person should see. */
export async function readableSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read source: ${path} is a directory`);
    }
    return info.size;
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CatalogIoError('SOURCE_NOT_FOUND', `File not found: ${path}`);
    throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read file ${path}: ${code ?? String(err)}`);
  }
}

export function openStdin(stdin: Readable = process.stdin): ByteSource {
  return fromStream(stdin, 'stdin', '', undefined);
}

/** `chunkBytes`: larger chunks from the stream are handed out in pieces of at most this size. */
export function fromStream(
  stream: Readable,
  name: string,
  fileName: string,
  totalBytes: number | undefined,
  chunkBytes = Number.POSITIVE_INFINITY,
): ByteSource {
  const { chunks, count } = counted(readChunks(stream, name, chunkBytes));
  return {
    name,
    fileName: fileName.toLowerCase(),
    chunks,
    totalBytes,
    bytesRead: count,
    close: async () => {
      if (stream !== process.stdin) stream.destroy();
    },
  };
}

async function* readChunks(stream: Readable, name: string, chunkBytes: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (bytes.length <= chunkBytes) yield bytes;
      else for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
    }
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read ${name}: ${code ?? (err as Error).message}`);
  }
}
