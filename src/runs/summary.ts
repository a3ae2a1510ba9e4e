// summary.json: written into the run folder when a run ends, and copied where `--summary FILE` says.
import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunSummary } from '../runner/summary-types.js';

export async function writeRunSummary(file: string, summary: RunSummary, copyTo?: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, `${JSON.stringify(summary, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
  if (copyTo) {
    await mkdir(path.dirname(path.resolve(copyTo)), { recursive: true });
    await copyFile(file, copyTo);
  }
}
