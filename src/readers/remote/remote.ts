// Remote feed sources: resolve a pattern to its newest match, stream the file as a ByteSource like
// any other source, and move it into a `done/` folder once it was imported.
import { CatalogIoError } from '../../errors.js';
import type { ByteSource } from '../sources/byte-source.js';
import { fromStream } from '../sources/file.js';
import {
  isPattern,
  joinPath,
  parseRemote,
  patternToRegExp,
  type RemoteAddress,
  redactRemote,
  remoteUrl,
} from './address.js';
import { openSession, type RemoteFile, type RemoteSession } from './session.js';

/** What the readers get at a time, as for local files. */
const CHUNK_BYTES = 64 * 1024;
/** A transfer that brings no byte for this long has stalled (the server gone mid-file): the read fails. */
export const REMOTE_STALL_MS = 30_000;

export interface RemoteOptions {
  env?: NodeJS.ProcessEnv;
  /** See REMOTE_STALL_MS (`--source-timeout`). */
  timeoutMs?: number;
}

/** Streams the file (or the newest match of a pattern); the connection closes with the source. */
export async function openRemote(spec: string, options: RemoteOptions = {}): Promise<ByteSource> {
  const address = parseRemote(spec);
  const session = await openSession(address, redactRemote(spec), options.env);
  try {
    const picked = await pickFile(session, address, redactRemote(spec));
    const path = joinPath(address.dir, picked.name);
    // What the end of the read is compared with: a listing's dates may be rounded (FTP), a stat's not.
    const file = isPattern(address.name) ? await session.stat(path) : picked;
    const name = redactRemote(remoteUrl(address, address.dir, file.name));
    const stream = session.read(path);
    // Requests still out when the read is cut short (closed early, or stalled) fail later, on a stream
    // nobody reads any more.
    const cut = () => {
      stream.on('error', () => undefined);
      stream.destroy();
    };
    const source = fromStream(stream, name, file.name, file.size || undefined, CHUNK_BYTES);
    const stallMs = options.timeoutMs ?? REMOTE_STALL_MS;
    return {
      ...source,
      chunks: wholeAtEnd(
        untilStalled(source.chunks, stallMs, () => {
          cut();
          return new CatalogIoError(
            'SOURCE_TIMEOUT',
            `Cannot read ${name}: no data for ${stallMs / 1000} s after ${source.bytesRead()} bytes (the server stopped sending)`,
          );
        }),
        async () => {
          // A file still being uploaded: what was read is not the whole of it. The run stops as for
          // a source that broke off (the rows read are done and reported, exit 2), so the file is not
          // moved to done/ and the next run reads it whole.
          const now = await session.stat(path);
          const read = source.bytesRead();
          const changed =
            now.size !== read || (file.modifiedAt !== undefined && now.modifiedAt !== file.modifiedAt);
          if (!changed) return;
          throw new CatalogIoError(
            'SOURCE_CHANGED',
            `${name} changed while it was read (${read} bytes read, ${now.size} bytes now): it is still being written; the rows read so far are done, the file is left in place for the next run`,
          );
        },
      ),
      close: async () => {
        cut();
        await session.close();
      },
    };
  } catch (err) {
    await session.close();
    throw err;
  }
}

/**
 * The address of the one file a run reads: the newest match when `spec` names a pattern, else
 * `spec` itself once it is known to exist. A run resolves first, then reads and moves that file, so
 * a file that arrives meanwhile is left for the next run.
 */
export async function resolveRemote(spec: string, options: RemoteOptions = {}): Promise<string> {
  const address = parseRemote(spec);
  const session = await openSession(address, redactRemote(spec), options.env);
  try {
    const file = await pickFile(session, address, redactRemote(spec));
    return remoteUrl(address, address.dir, file.name);
  } finally {
    await session.close();
  }
}

/**
 * Moves the file into `doneDir` (relative to its folder unless absolute), made when missing. A file
 * of that name already there is kept: the moved one gets a time stamp before its extension.
 * Returns the new path.
 */
export async function moveRemote(spec: string, doneDir: string, options: RemoteOptions = {}) {
  const address = parseRemote(spec);
  if (isPattern(address.name)) {
    throw new CatalogIoError('INTERNAL', 'moveRemote() needs a resolved address, not a pattern');
  }
  const display = redactRemote(spec);
  const session = await openSession(address, display, options.env);
  try {
    const target = doneDir.startsWith('/') ? doneDir : joinPath(address.dir, doneDir);
    await session.ensureDir(target);
    let to = joinPath(target, address.name);
    if (await session.exists(to)) to = joinPath(target, stamped(address.name, new Date()));
    try {
      await session.rename(joinPath(address.dir, address.name), to);
    } catch (err) {
      throw new CatalogIoError(
        'SOURCE_UNREADABLE',
        `Cannot move ${display} to ${to}: ${(err as Error).message ?? err}`,
      );
    }
    return to;
  } finally {
    await session.close();
  }
}

/** The chunks, then `check()` once they ended (its error is the source's last word). */
async function* wholeAtEnd(
  chunks: AsyncIterable<Buffer>,
  check: () => Promise<void>,
): AsyncGenerator<Buffer> {
  yield* chunks;
  await check();
}

/**
 * The chunks, failing with `stalled()`'s error when the next one takes longer than `ms` to come: an
 * SFTP server that dies mid-file leaves the read waiting for ever otherwise (and the run's lock held).
 * Only the source's own wait counts, not the time the consumer takes between chunks.
 */
async function* untilStalled(
  chunks: AsyncIterable<Buffer>,
  ms: number,
  stalled: () => Error,
): AsyncGenerator<Buffer> {
  const it = chunks[Symbol.asyncIterator]();
  let stuck = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stuck = true;
          reject(stalled());
        }, ms);
      });
      let next: IteratorResult<Buffer>;
      try {
        next = await Promise.race([it.next(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A stalled read's `next` may never settle: its `return` would wait behind it.
    if (stuck) void it.return?.()?.catch(() => undefined);
    else await it.return?.();
  }
}

async function pickFile(session: RemoteSession, address: RemoteAddress, display: string) {
  if (!isPattern(address.name)) return session.stat(joinPath(address.dir, address.name));
  const match = patternToRegExp(address.name);
  const files = (await session.list(address.dir)).filter((f) => match.test(f.name));
  if (files.length === 0) {
    throw new CatalogIoError(
      'SOURCE_NOT_FOUND',
      `No file matches ${address.name} in ${address.dir} on ${display}`,
    );
  }
  // A listing without dates (some FTP servers): ask for each match's date (MDTM).
  for (const file of files) {
    if (file.modifiedAt === undefined) {
      file.modifiedAt = (await session.stat(joinPath(address.dir, file.name))).modifiedAt;
    }
  }
  return files.reduce(newer);
}

/** The newer of two files; on the same date (servers round to seconds or minutes) the later name. */
function newer(a: RemoteFile, b: RemoteFile): RemoteFile {
  const ta = a.modifiedAt ?? 0;
  const tb = b.modifiedAt ?? 0;
  if (ta !== tb) return ta > tb ? a : b;
  return a.name > b.name ? a : b;
}

function stamped(name: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}.${stamp}${name.slice(dot)}` : `${name}.${stamp}`;
}
