// Reading ahead on a second thread: the source is read and parsed by a worker thread while this thread
// maps, validates and writes the report, so the two halves of a run use both cores. The rows that arrive
// are the reader's rows, unchanged (same cells, locations and row errors); small files, stdin and URLs are
// read in this thread, where starting a thread would cost more than it saves.
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CatalogIoError, type ErrorCode } from '../errors.js';
import { type OpenedSource, openSource, type ReaderOptions } from '../readers/index.js';
import type { Cell, SourceRow } from '../readers/types.js';
import {
  type AheadInput,
  type AheadMessage,
  type ControlMessage,
  type OpenedMessage,
  ROW_FIELDS,
  type RowsMessage,
} from './read-ahead-protocol.js';

/** `thread`: read on a worker thread; `inline`: in this thread; `auto`: a thread for local files of 4 MB and more. */
export type ReadAhead = 'auto' | 'thread' | 'inline';

const AUTO_MIN_BYTES = 4 * 1024 * 1024;
const BATCH_ROWS = 1024;
const MAX_IN_FLIGHT = 8;

/** Opens the source like openSource(), reading it on a worker thread when that pays. */
export async function openSourceAhead(
  spec: string,
  options: ReaderOptions = {},
  readAhead: ReadAhead = 'inline',
): Promise<OpenedSource> {
  if (readAhead === 'inline' || !(await worthAThread(spec, options, readAhead)))
    return openSource(spec, options);
  const { stdin: _, ...plain } = options;
  return openOnThread({ spec, options: plain, batchRows: BATCH_ROWS, maxInFlight: MAX_IN_FLIGHT });
}

async function worthAThread(spec: string, options: ReaderOptions, readAhead: ReadAhead): Promise<boolean> {
  if (spec === '-' || /^https?:\/\//i.test(spec) || options.stdin) return false;
  if (readAhead === 'thread') return true;
  try {
    return (await stat(spec)).size >= AUTO_MIN_BYTES;
  } catch {
    return false; // openSource says what is wrong with the path
  }
}

/** One message at a time from the worker, in order. */
class Inbox {
  private readonly queue: AheadMessage[] = [];
  private waiting: ((m: AheadMessage) => void) | undefined;

  push(message: AheadMessage): void {
    if (this.waiting) {
      const take = this.waiting;
      this.waiting = undefined;
      take(message);
    } else this.queue.push(message);
  }

  next(): Promise<AheadMessage> {
    const message = this.queue.shift();
    if (message) return Promise.resolve(message);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

async function openOnThread(input: AheadInput): Promise<OpenedSource> {
  const worker = startWorker(input);
  const inbox = new Inbox();
  let exited = false;
  worker.on('message', (m: AheadMessage) => inbox.push(m));
  worker.on('error', (err) =>
    inbox.push({ type: 'error', message: `the reading thread failed: ${err.message}` }),
  );
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      inbox.push({ type: 'error', message: 'the reading thread stopped' });
      resolve();
    }),
  );
  const control = (message: ControlMessage) => {
    if (!exited) worker.postMessage(message);
  };
  const close = async () => {
    control({ type: 'close' });
    // The worker closes its file and ends; a worker stuck in a read is stopped.
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exit;
    clearTimeout(timer);
  };

  const first = await inbox.next();
  if (first.type !== 'opened') {
    await close();
    throw errorFrom(first.type === 'error' ? first : { message: 'the reading thread sent no header' });
  }
  const opened: OpenedMessage = first;
  const headers = [...opened.headers];
  const notes = [...opened.notes];
  let bytesRead = 0;
  const keys: string[] = [];

  async function* rows(): AsyncGenerator<SourceRow> {
    for (;;) {
      const message = await inbox.next();
      if (message.type === 'end') {
        bytesRead = message.bytesRead;
        for (const note of message.notes) if (!notes.includes(note)) notes.push(note);
        return;
      }
      if (message.type === 'error') throw errorFrom(message);
      if (message.type !== 'rows') continue;
      control({ type: 'ack' });
      bytesRead = message.bytesRead;
      for (const key of message.newKeys) keys.push(key);
      if (message.headers) headers.splice(0, headers.length, ...message.headers);
      yield* decode(message, keys, opened.source);
    }
  }

  return {
    format: opened.format,
    ...(opened.encoding !== undefined && { encoding: opened.encoding }),
    ...(opened.delimiter !== undefined && { delimiter: opened.delimiter }),
    headers,
    rows: rows(),
    bytesRead: () => bytesRead,
    ...(opened.totalBytes !== undefined && { totalBytes: opened.totalBytes }),
    notes,
    source: opened.source,
    close,
  };
}

/** The batch's rows, rebuilt as the reader made them (cells with a null prototype, in header order). */
function* decode(batch: RowsMessage, keys: readonly string[], source: string): Generator<SourceRow> {
  const { data } = batch;
  let at = 0;
  while (at < data.length) {
    const sheet = data[at + 3] as string | null;
    const location: SourceRow['location'] = {
      text: data[at] as string,
      source: (data[at + 4] as string | null) ?? source,
      line: data[at + 1] as number,
    };
    if (sheet !== null) location.sheet = sheet;
    const index = data[at + 2] as number;
    const errorCode = data[at + 5] as string | null;
    const errorMessage = data[at + 6] as string | null;
    const count = data[at + ROW_FIELDS] as number;
    at += ROW_FIELDS + 1;
    const cells: Record<string, Cell> = Object.create(null);
    for (let i = 0; i < count; i += 1, at += 2) cells[keys[data[at] as number]!] = data[at + 1] as Cell;
    const row: SourceRow = { location, cells, index };
    if (errorCode !== null) row.error = { code: errorCode, message: errorMessage ?? '' };
    yield row;
  }
}

function errorFrom(message: { code?: string; message: string; location?: string }): Error {
  if (message.code === undefined) return new Error(message.message);
  const error = new CatalogIoError(message.code as ErrorCode, message.message);
  // The message already names the location; the field is kept for callers that read it.
  if (message.location !== undefined) Object.assign(error, { location: message.location });
  return error;
}

/**
 * The compiled worker is a `.js` file next to this one. Run from TypeScript sources (tsx, vitest), the
 * thread first registers tsx's loader, which a worker's entry does not get from its parent.
 */
function startWorker(input: AheadInput): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts'))
    return new Worker(new URL('./read-ahead-worker.js', here), { workerData: input });
  const entry = new URL('./read-ahead-worker.ts', here).href;
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: input });
}
