// Local files and stdin as byte sources.
import { closeSync, createReadStream, fstatSync, openSync, read } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CatalogIoError } from '../../errors.js';
import { type ByteSource, counted } from './byte-source.js';

/** What the readers get at a time: the text decoder is fastest on chunks of this size. */
const CHUNK_BYTES = 64 * 1024;
/** What one read takes: three chunks, so that the next read is done while they are parsed. */
const READ_BYTES = 3 * CHUNK_BYTES;

export async function openFile(path: string): Promise<ByteSource> {
  const { size, regular } = await readableFile(path);
  if (!regular) {
    const stream = createReadStream(path, { highWaterMark: READ_BYTES });
    return { ...fromStream(stream, path, path, size, CHUNK_BYTES), path };
  }
  // A regular file is read with `fs.read`, the next read on Node's I/O thread while the chunks of the one
  // before are parsed: a stream's machinery cost this thread about as much as the copy itself (the 30 MB
  // text file: 40 ms through a stream, 21 ms with readSync, where the copy is on this thread).
  const file: OpenFile = { fd: undefined, reading: undefined };
  try {
    file.fd = openSync(path, 'r');
  } catch (err) {
    throw unreadable(path, err);
  }
  return { ...fileSource(file, path, path.toLowerCase(), size), path };
}

/** The byte source of an open file (a path's, or standard input's), read by `fileChunks`. */
function fileSource(file: OpenFile, name: string, fileName: string, size: number): ByteSource {
  const { chunks, count } = counted(fileChunks(file, name));
  return { name, fileName, chunks, totalBytes: size, bytesRead: count, close: () => closeFile(file) };
}

/**
 * A file descriptor until closed, and the read in flight on it: a number closed is not read again (the
 * system may give it to another file), and it is closed only once no read is in flight. `borrowed`:
 * standard input, read from where it stands and never closed here.
 */
interface OpenFile {
  fd: number | undefined;
  reading: Promise<unknown> | undefined;
  borrowed?: true;
}

async function closeFile(file: OpenFile): Promise<void> {
  const fd = file.fd;
  if (fd === undefined) return;
  file.fd = undefined;
  await file.reading;
  if (!file.borrowed) closeSync(fd);
}

/**
 * The chunks of a regular file from its start (standard input: from where it stands), each read asked
 * for before the last one's are parsed.
 */
async function* fileChunks(file: OpenFile, path: string): AsyncGenerator<Buffer> {
  // Standard input's own position (null): a shell may have read its first lines already.
  let position: number | null = file.borrowed ? null : 0;
  const readNext = (): Promise<Buffer> => {
    const fd = file.fd;
    if (fd === undefined) return Promise.resolve(Buffer.alloc(0));
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    const done = new Promise<Buffer>((resolve, reject) => {
      read(fd, buffer, 0, READ_BYTES, position, (err, bytes) => {
        if (err) reject(unreadable(path, err));
        else resolve(buffer.subarray(0, bytes));
      });
    });
    // Settled, whoever waits for it: a read left in flight when the source is closed fails nothing.
    file.reading = done.catch(() => undefined);
    return done;
  };
  try {
    let next = readNext();
    for (;;) {
      const bytes = await next;
      if (bytes.length === 0) return;
      if (position !== null) position += bytes.length;
      next = readNext();
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
        if (file.fd === undefined) return;
        yield bytes.subarray(at, at + CHUNK_BYTES);
      }
    }
  } finally {
    await closeFile(file);
  }
}

function unreadable(path: string, err: unknown): CatalogIoError {
  const code = (err as NodeJS.ErrnoException).code;
  return new CatalogIoError('SOURCE_UNREADABLE', `Cannot read file ${path}: ${code ?? String(err)}`);
}

/** The size of a local file that can be read, or the coded error a person should see. */
export async function readableSize(path: string): Promise<number> {
  return (await readableFile(path)).size;
}

/** The size of a local file that can be read and whether it is a regular file, or the coded error. */
async function readableFile(path: string): Promise<{ size: number; regular: boolean }> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read source: ${path} is a directory`);
    }
    return { size: info.size, regular: info.isFile() };
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CatalogIoError('SOURCE_NOT_FOUND', `File not found: ${path}`);
    throw new CatalogIoError('SOURCE_UNREADABLE', `Cannot read file ${path}: ${code ?? String(err)}`);
  }
}

/**
 * Standard input: `stdin` when given, else the process's. Redirected from a regular file (`validate - <
 * feed.csv`), it is read as a local file is (its size known for progress and the duplicate table, no
 * stream's machinery), from where it stands, and left open; a pipe or a terminal is read as a stream.
 */
export function openStdin(stdin?: Readable): ByteSource {
  const size = stdin === undefined ? regularStdinSize() : undefined;
  if (size === undefined) return fromStream(stdin ?? process.stdin, 'stdin', '', undefined);
  return fileSource({ fd: 0, reading: undefined, borrowed: true }, 'stdin', '', size);
}

/** The size of the regular file standard input reads from, or undefined (a pipe, a terminal, none). */
function regularStdinSize(): number | undefined {
  try {
    const info = fstatSync(0);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
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
