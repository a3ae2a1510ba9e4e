// A file replaced whole (state, summaries, caches): written beside it under a name of this process's
// own, then renamed over it, so a reader, a crash or a second process sees the old file or the new one,
// never half of one. Its folder is made when missing.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export function replaceFileSync(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch (err) {
    // A full disk leaves no half-written copy beside the file.
    rmSync(temp, { force: true });
    throw err;
  }
}

export async function replaceFile(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** JSON as people read it: two-space indents and a final line break. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
