// Writing to a file with backpressure: wait for 'drain' instead of buffering without bound. The bytes go
// to `<path>.partial`, renamed to `<path>` once complete, so a failed export never leaves a truncated
// file under the name a person (or a previous good export) expects.

import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CatalogIoError } from '../../errors.js';

export function partialPath(path: string): string {
  return `${path}.partial`;
}

export class FileOut {
  private readonly stream: WriteStream;
  private done = false;

  constructor(readonly path: string) {
    this.stream = createWriteStream(partialPath(path));
  }

  async write(chunk: string): Promise<void> {
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Flushes, closes and gives the file its name. */
  async end(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.stream.end();
    await once(this.stream, 'finish');
    renameSync(partialPath(this.path), this.path);
  }

  /** Closes and removes the unfinished file. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.stream.destroy();
    await once(this.stream, 'close').catch(() => undefined);
    rmSync(partialPath(this.path), { force: true });
  }
}

/**
 * The files of a sink that writes one file per entity: `<dir>/<entity>.<extension>`, or the one named
 * file when the export has a single entity.
 */
export class EntityFiles {
  readonly files: string[] = [];
  private readonly outs: FileOut[] = [];

  constructor(
    private readonly target: { dir: string } | { file: string },
    private readonly extension: string,
    private readonly formatName: string,
  ) {}

  open(entity: string): FileOut {
    const { target, files } = this;
    if ('file' in target && files.length > 0) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `A single ${this.formatName} file holds one entity; name a folder with --out to export ${files.length + 1} entities`,
      );
    }
    const path =
      'file' in target ? target.file : join(target.dir, `${safeFileName(entity)}.${this.extension}`);
    files.push(path);
    const out = new FileOut(path);
    this.outs.push(out);
    return out;
  }

  /** Removes the unfinished files; those already complete stay (aborting a finished file does nothing). */
  async abort(): Promise<void> {
    for (const out of this.outs) await out.abort();
  }
}

/** `custom:Store Locations` -> `custom-Store Locations`: safe on every file system. */
function safeFileName(name: string): string {
  return name.replace(/[:/\\?*"<>|]/g, '-');
}
