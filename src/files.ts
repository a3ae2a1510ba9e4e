// Files we write: the reason a write failed, said for people (a folder that does not exist, no
// permission, a full disk) rather than the system's `ENOENT: no such file or directory, open`, and a
// write that is whole or an error (a full disk first takes part of a write and says nothing).
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, type WriteStream, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CatalogIoError } from './errors.js';

/** Why `path` could not be opened or written, in words. */
export function writeProblem(path: string, cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      // A folder that is there but makes no such file (/proc, /sys) is not a missing one.
      return existsSync(dirname(path))
        ? `the folder ${dirname(path)} takes no new files`
        : `the folder ${dirname(path)} does not exist`;
    case 'ENOTDIR':
      return `a part of ${dirname(path)} is a file, not a folder`;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EFBIG':
      return 'the file reached the size this process may write (ulimit -f)';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EROFS':
      return 'the file system is read-only';
    default:
      return (cause as Error).message;
  }
}

/**
 * Why a file-system error of any call happened, in words (the path is the error's own). Unlike a write's
 * open, a missing path is said for itself, not as its folder.
 */
export function faultProblem(cause: unknown): string {
  const err = cause as NodeJS.ErrnoException;
  // A folder that cannot be made where its parent is: a read-only place, or one not ours.
  if (err.code === 'ENOENT' && err.syscall === 'mkdir' && err.path) {
    let above = dirname(err.path);
    while (!existsSync(above) && dirname(above) !== above) above = dirname(above);
    if (existsSync(above)) return `${above} takes no new folders (read-only, or no permission)`;
  }
  if (err.code === 'ENOENT') return 'it, or a folder above it, does not exist';
  if (err.code === 'EEXIST') return 'a file of that name is in the way';
  if (err.code === 'ENOTFOUND') return 'no such host';
  return writeProblem(err.path ?? '', cause);
}

/** A file-system error (it names its system call), as opposed to a service's or our own. */
export function isFileFault(err: unknown): err is NodeJS.ErrnoException {
  return (err as NodeJS.ErrnoException | undefined)?.syscall !== undefined;
}

/** The error for an output file that took part of a run's writes and then no more (a full disk). */
export function writeFailed(path: string, cause: unknown, what = ''): CatalogIoError {
  return new CatalogIoError('OUTPUT_FAILED', `Writing ${what}${path} failed: ${writeProblem(path, cause)}`, {
    cause,
  });
}

/** The error for an output file that cannot be created (a bad `--report`, `--out` or `--rejects`). */
export function cannotWrite(path: string, cause: unknown): CatalogIoError {
  return new CatalogIoError('CONFIG_INVALID', `Cannot write ${path}: ${writeProblem(path, cause)}`, {
    cause,
  });
}

/**
 * Writes all of `data` at the file's position (or at `position`): a write the disk took only part of is
 * continued, so the rest either goes out or fails with the disk's error (ENOSPC) instead of being lost.
 * Returns the bytes written.
 */
export function writeFully(fd: number, data: string | Uint8Array, position?: number): number {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let done = 0;
  while (done < bytes.length) {
    const at = position === undefined ? null : position + done;
    done += writeSync(fd, bytes, done, bytes.length - done, at);
  }
  return done;
}

/**
 * A file stream's write errors (a full disk), kept as the export's OUTPUT_FAILED naming the file: thrown
 * by the next write or the end, never an unhandled 'error' event.
 */
export class WriteFailure {
  private error: CatalogIoError | undefined;
  /** Settles (rejected) on the stream's first error: raced against waits the error would leave hanging. */
  readonly failed: Promise<never>;

  constructor(
    private readonly path: string,
    stream: NodeJS.WritableStream,
  ) {
    this.failed = new Promise<never>((_, reject) => {
      stream.on('error', (err) => {
        this.error ??= writeFailed(this.path, err);
        reject(this.error);
      });
    });
    // Nobody may be waiting when it fails: the next check throws it instead.
    this.failed.catch(() => undefined);
  }

  check(): void {
    if (this.error) throw this.error;
  }

  /** `wait`, unless the stream fails first (or failed already: then rejected at once). */
  until<T>(wait: Promise<T>): Promise<T> {
    return Promise.race([wait, this.failed]);
  }
}

/**
 * Makes the folder an output file goes in, when missing, as for an export and the summary: a nightly
 * run's `--report reports/$(date +%F)/products.csv` needs no folder made beforehand.
 */
export function makeFolderOf(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (cause) {
    // A file where the folder goes: the file's open says so (ENOTDIR) in the usual words.
    if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotWrite(path, cause);
  }
}

/**
 * A file stream for a report, rejects file or workbook (exceljs writes into it): opened, so a path that
 * cannot be written is `cannotWrite`'s error at once, and watched, so a later write error is the run's
 * OUTPUT_FAILED. Its folder is made when missing (makeFolderOf).
 */
export async function openOutputStream(
  path: string,
  highWaterMark?: number,
): Promise<{ out: WriteStream; failure: WriteFailure }> {
  makeFolderOf(path);
  const out = createWriteStream(path, highWaterMark === undefined ? {} : { highWaterMark });
  const failure = new WriteFailure(path, out);
  try {
    await failure.until(once(out, 'open'));
  } catch (cause) {
    throw cannotWrite(path, (cause as CatalogIoError).cause ?? cause);
  }
  return { out, failure };
}

/** The workbook's commit, then its file stream's end: the file is whole once both are done. */
export async function workbookWritten(commit: Promise<unknown>, out: WriteStream, failure: WriteFailure) {
  await failure.until(commit);
  // exceljs resolves once the zip is handed over: the file is whole once its stream finished.
  if (!out.writableFinished) await failure.until(once(out, 'finish'));
}
