// Files we write: the reason a write failed, said for people (a folder that does not exist, no
// permission, a full disk) rather than the system's `ENOENT: no such file or directory, open`, and a
// write that is whole or an error (a full disk first takes part of a write and says nothing).
import { writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CatalogIoError } from './errors.js';

/** Why `path` could not be opened or written, in words. */
export function writeProblem(path: string, cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return `the folder ${dirname(path)} does not exist`;
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

/** The error for an output file that cannot be created (a bad `--report`, `--out` or `--rejects`). */
export function cannotWrite(path: string, cause: unknown): CatalogIoError {
  return new CatalogIoError('CONFIG_INVALID', `Cannot write ${path}: ${writeProblem(path, cause)}`, {
    cause,
  });
}

/**
 * Writes all of `data` at the file's position (or at `position`): a write the disk took only part of is
 * continued, so the rest either goes out or fails with the disk's error (ENOSPC) instead of being lost.
 */
export function writeFully(fd: number, data: string | Uint8Array, position?: number): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let done = 0;
  while (done < bytes.length) {
    const at = position === undefined ? null : position + done;
    done += writeSync(fd, bytes, done, bytes.length - done, at);
  }
}
