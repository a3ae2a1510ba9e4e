// An output file that cannot be written, said for people: the reason in words (a folder that does not
// exist, no permission, a full disk) rather than the system's `ENOENT: no such file or directory, open`.
import { dirname } from 'node:path';
import { CatalogIoError } from '../errors.js';

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
