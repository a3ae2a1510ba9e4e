// Writing to a file with backpressure: wait for 'drain' instead of buffering without bound.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';

export class FileOut {
  private readonly stream: WriteStream;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path);
  }

  async write(chunk: string): Promise<void> {
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async end(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
  }
}
