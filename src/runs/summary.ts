// summary.json: written into the run folder when a run ends, and copied where `--summary FILE` says.
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cannotWrite, writeFailed } from '../files.js';
import { jsonText, replaceFile } from '../replace-file.js';
import type { RunSummary } from '../runner/summary-types.js';

export async function writeRunSummary(file: string, summary: RunSummary, copyTo?: string): Promise<void> {
  await replaceFile(file, jsonText(summary));
  if (copyTo) await copySummary(file, copyTo);
}

/**
 * The `--summary FILE` copy; a copy that cannot be written is the run's OUTPUT_FAILED, in words. A file
 * is replaced whole (a scheduler never reads half of it); a device or pipe is written in place. Not
 * `copyFile`: on a failed write it removes the target, which for `/dev/full` (as root) is the device.
 */
export async function copySummary(file: string, copyTo: string): Promise<void> {
  try {
    const text = await readFile(file, 'utf8');
    const target = await stat(copyTo).catch(() => undefined);
    if (target && !target.isFile()) await writeFile(copyTo, text);
    else {
      await mkdir(path.dirname(path.resolve(copyTo)), { recursive: true });
      await replaceFile(copyTo, text);
    }
  } catch (err) {
    throw writeFailed(copyTo, err, 'the summary copy ');
  }
}

/**
 * Checked before a run starts: a `--summary FILE` that could never be written (a folder in its place, a
 * folder above it that is a file or not writable) is refused, not found out once the run is over.
 */
export async function checkSummaryPath(copyTo: string): Promise<void> {
  const target = path.resolve(copyTo);
  const info = await stat(target).catch(() => undefined);
  if (info?.isDirectory()) throw cannotWrite(copyTo, Object.assign(new Error('EISDIR'), { code: 'EISDIR' }));
  // The nearest folder that exists must take a new file (the ones missing below it are made).
  let folder = path.dirname(target);
  for (;;) {
    const here = await stat(folder).catch(() => undefined);
    if (here) {
      if (!here.isDirectory())
        throw cannotWrite(copyTo, Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' }));
      break;
    }
    const up = path.dirname(folder);
    if (up === folder) return;
    folder = up;
  }
  try {
    await access(folder, constants.W_OK);
  } catch (err) {
    throw cannotWrite(copyTo, err);
  }
}
