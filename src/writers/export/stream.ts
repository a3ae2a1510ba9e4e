// Writing to a file with backpressure: wait for 'drain' instead of buffering without bound. The bytes go
// to `<path>.partial`, renamed to `<path>` once complete, so a failed export never leaves a truncated
// file under the name a person (or a previous good export) expects.

import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';

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
