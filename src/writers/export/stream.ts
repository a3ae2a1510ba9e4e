// Writing to a file with backpressure: wait for 'drain' instead of buffering without bound. The bytes go
// to `<path>.partial`, renamed to `<path>` once complete, so a failed export never leaves a truncated
// file under the name a person (or a previous good export) expects. A stream target (`-`: stdout, or
// a device or pipe such as /dev/stdout) is written straight: there is nothing to rename.

import { once } from 'node:events';
import { createWriteStream, openSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { CatalogIoError } from '../../errors.js';
import { WriteFailure } from '../../files.js';

export function partialPath(path: string): string {
  return `${path}.partial`;
}

/** `--out -`: the export's one file is this process's standard output. */
export const STDOUT = '-';

export class FileOut {
  private readonly stream: WriteStream | NodeJS.WriteStream;
  private readonly failure: WriteFailure | undefined;
  private done = false;

  /** `direct`: written under its own name (a device, a pipe), not renamed from `.partial`. */
  constructor(
    readonly path: string,
    private readonly direct = false,
  ) {
    // A device or pipe is opened at once, so a failure to open it is this call's error.
    this.stream =
      path === STDOUT
        ? process.stdout
        : direct
          ? createWriteStream(path, { fd: openSync(path, 'w') })
          : createWriteStream(partialPath(path));
    // Standard output's errors are the process's (cli/run.ts): a reader gone is the end, quietly.
    if (this.stream !== process.stdout) this.failure = new WriteFailure(path, this.stream);
  }

  async write(chunk: string): Promise<void> {
    this.failure?.check();
    if (!this.stream.write(chunk)) await this.wait(once(this.stream, 'drain'));
  }

  private wait<T>(event: Promise<T>): Promise<T> {
    return this.failure ? this.failure.until(event) : event;
  }

  /** Flushes, closes and gives the file its name. */
  async end(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (this.stream === process.stdout) {
      // Never ended: the process still prints after; written once drained.
      if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
      return;
    }
    this.stream.end();
    try {
      await this.wait(once(this.stream, 'finish'));
    } catch (err) {
      // A file the disk did not take whole is not left under any name.
      if (!this.direct) rmSync(partialPath(this.path), { force: true });
      throw err;
    }
    if (!this.direct) renameSync(partialPath(this.path), this.path);
  }

  /** Closes and removes the unfinished file. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (this.stream === process.stdout) return;
    // A stream that failed (a full disk) has closed already: waiting for its 'close' would never end.
    if (!(this.stream as WriteStream).closed) {
      this.stream.destroy();
      await once(this.stream, 'close').catch(() => undefined);
    }
    if (!this.direct) rmSync(partialPath(this.path), { force: true });
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
    private readonly target: { dir: string } | { file: string; direct?: boolean },
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
    const out = new FileOut(path, 'file' in target && target.direct === true);
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
