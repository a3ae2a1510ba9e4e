// Line-oriented file output with backpressure: every writer of this folder that writes text goes through it.

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { CatalogIoError } from '../errors.js';

export interface LineFile {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function openLineFile(path: string): Promise<LineFile> {
  const stream: WriteStream = createWriteStream(path, { encoding: 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (err) => {
    failure = err;
  });
  try {
    await once(stream, 'open');
  } catch (cause) {
    throw new CatalogIoError('CONFIG_INVALID', `Cannot write ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const check = () => {
    if (failure)
      throw new CatalogIoError('INTERNAL', `Writing ${path} failed: ${failure.message}`, { cause: failure });
  };
  return {
    async write(text) {
      check();
      if (!stream.write(text)) await once(stream, 'drain');
    },
    async close() {
      check();
      stream.end();
      await once(stream, 'finish');
    },
  };
}

/** `.csv`, `.jsonl` (or `.ndjson`), `.xlsx`: the format a report or rejects file is written in. */
export type FileFormat = 'csv' | 'jsonl' | 'xlsx';

export function formatFromExtension(path: string): FileFormat | undefined {
  const ext = path.toLowerCase().split('.').pop();
  if (ext === 'csv') return 'csv';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  if (ext === 'xlsx') return 'xlsx';
  return undefined;
}
