// Local files and stdin as byte sources.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CatalogIoError } from '../../errors.js';
import { type ByteSource, counted } from './byte-source.js';

const CHUNK_BYTES = 64 * 1024;

export async function openFile(path: string): Promise<ByteSource> {
  const size = await readableSize(path);
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  return fromStream(stream, path, path, size);
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

export function fromStream(
  stream: Readable,
  name: string,
  fileName: string,
  totalBytes: number | undefined,
): ByteSource {
  const { chunks, count } = counted(readChunks(stream, name));
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

async function* readChunks(stream: Readable, name: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream)
      yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read ${name}: ${code ?? (err as Error).message}`);
  }
}
