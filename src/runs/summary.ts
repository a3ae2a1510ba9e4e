// summary.json: written into the run folder when a run ends, and copied where `--summary FILE` says.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { jsonText, replaceFile } from '../replace-file.js';
import type { RunSummary } from '../runner/summary-types.js';

export async function writeRunSummary(file: string, summary: RunSummary, copyTo?: string): Promise<void> {
  await replaceFile(file, jsonText(summary));
  if (copyTo) {
    await mkdir(path.dirname(path.resolve(copyTo)), { recursive: true });
    await copyFile(file, copyTo);
  }
}
