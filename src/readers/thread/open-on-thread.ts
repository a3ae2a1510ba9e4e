// Reading on a second thread: the source is read and parsed by a worker thread while this thread maps,
// validates and writes, so the two halves of a run use both cores. The rows that arrive are the
// reader's rows (same cells, locations and row errors); standard input, URLs and small files are read
// in this thread, where starting a thread costs more than it saves.
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CatalogIoError, type ErrorCode } from '../../errors.js';
import { type OpenedSource, openSource } from '../open.js';
import type { ReaderOptions } from '../options.js';
import { type BufferedRows, type Cell, type Location, type SourceRow, TableRow } from '../types.js';
import {
  type ControlMessage,
  type ErrorMessage,
  KIND,
  type OpenedMessage,
  type ReaderMessage,
  ROW_NUMBERS,
  type RowsMessage,
  type ThreadInput,
} from './protocol.js';

/** `on`: read on a worker thread; `off`: in this thread; `auto`: a thread for local files of 4 MB and more. */
export type ReadThread = 'auto' | 'on' | 'off';

export const READ_THREAD_MODES: readonly ReadThread[] = ['auto', 'on', 'off'];

const AUTO_MIN_BYTES = 4 * 1024 * 1024;
const BATCH_ROWS = 1000;
const MAX_IN_FLIGHT = 4;

/** Opens the source like openSource(), reading it on a worker thread when that pays (see ReadThread). */
export async function openSourceThreaded(
  spec: string,
  options: ReaderOptions = {},
  mode: ReadThread = 'auto',
): Promise<OpenedSource> {
  if (mode === 'off' || !(await worthAThread(spec, options, mode))) return openSource(spec, options);
  const { stdin: _, ...plain } = options;
  return openOnThread({ spec, options: plain, batchRows: BATCH_ROWS, maxInFlight: MAX_IN_FLIGHT });
}

async function worthAThread(spec: string, options: ReaderOptions, mode: ReadThread): Promise<boolean> {
  if (spec === '-' || /^https?:\/\//i.test(spec) || options.stdin) return false;
  if (mode === 'on') return true;
  if (availableParallelism() < 2) return false;
  try {
    return (await stat(spec)).size >= AUTO_MIN_BYTES;
  } catch {
    return false; // openSource says what is wrong with the path
  }
}

/** Messages from the worker, in order, taken one at a time. */
class Inbox {
  private readonly queue: ReaderMessage[] = [];
  private waiting: ((m: ReaderMessage) => void) | undefined;

  push(message: ReaderMessage): void {
    if (this.waiting) {
      const take = this.waiting;
      this.waiting = undefined;
      take(message);
    } else this.queue.push(message);
  }

  next(): Promise<ReaderMessage> {
    const message = this.queue.shift();
    if (message) return Promise.resolve(message);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

async function openOnThread(input: ThreadInput): Promise<OpenedSource> {
  const worker = startWorker(input);
  const inbox = new Inbox();
  let exited = false;
  worker.on('message', (m: ReaderMessage) => inbox.push(m));
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
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      control({ type: 'close' });
      // The worker closes its file and ends; a worker stuck in a read is stopped.
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exit;
      clearTimeout(timer);
    })();
    return closing;
  };

  const first = await inbox.next();
  if (first.type !== 'opened') {
    await close();
    throw errorFrom(
      first.type === 'error' ? first : { type: 'error', message: 'the reading thread sent no header' },
    );
  }
  const opened: OpenedMessage = first;
  const headers = [...opened.headers];
  const notes = [...opened.notes];
  let bytesRead = 0;
  const decoder = new BatchDecoder(opened.source);
  let buffered: SourceRow[] = [];
  let taken = 0;
  let done = false;

  /** Waits for the next batch; false at the end. */
  const refill = async (): Promise<boolean> => {
    for (;;) {
      const message = await inbox.next();
      if (message.type === 'end') {
        bytesRead = message.bytesRead;
        for (const note of message.notes) if (!notes.includes(note)) notes.push(note);
        return false;
      }
      if (message.type === 'error') throw errorFrom(message);
      if (message.type !== 'rows') continue;
      control({ type: 'ack' });
      bytesRead = message.bytesRead;
      if (message.headers) headers.splice(0, headers.length, ...message.headers);
      buffered = decoder.decode(message);
      taken = 0;
      if (buffered.length > 0) return true;
    }
  };

  const rows: AsyncIterableIterator<SourceRow> & BufferedRows = {
    [Symbol.asyncIterator]() {
      return this;
    },
    takeBuffered() {
      return taken < buffered.length ? buffered[taken++] : undefined;
    },
    async next() {
      if (taken < buffered.length) return { done: false, value: buffered[taken++]! };
      if (done) return { done: true, value: undefined };
      try {
        if (await refill()) return { done: false, value: buffered[taken++]! };
      } catch (err) {
        done = true;
        await close();
        throw err;
      }
      done = true;
      await close();
      return { done: true, value: undefined };
    },
    async return() {
      done = true;
      buffered = [];
      await close();
      return { done: true, value: undefined };
    },
  };

  return {
    format: opened.format,
    ...(opened.encoding !== undefined && { encoding: opened.encoding }),
    ...(opened.delimiter !== undefined && { delimiter: opened.delimiter }),
    headers,
    rows,
    bytesRead: () => bytesRead,
    ...(opened.totalBytes !== undefined && { totalBytes: opened.totalBytes }),
    notes,
    source: opened.source,
    // Like openSource(): once closed, the rows still held from the last batch are not handed out.
    close: () => {
      done = true;
      buffered = [];
      taken = 0;
      return close();
    },
  };
}

/** Turns batches back into rows: table rows share their header list, keyed rows get their record. */
class BatchDecoder {
  private readonly lists: string[][] = [];

  constructor(private readonly source: string) {}

  decode(batch: RowsMessage): SourceRow[] {
    for (const list of batch.newHeaderLists) this.lists.push(list);
    const { rows, text, ends, kinds, numbers, others, sheet } = batch;
    const out: SourceRow[] = [];
    // Cursors into the texts, the cell kinds, the numbers and the other values.
    let t = 0;
    let k = 0;
    let n = 0;
    let o = 0;
    const nextText = () => text.slice(t === 0 ? 0 : ends[t - 1]!, ends[t++]!);
    const nextCell = (): Cell => {
      switch (kinds[k++]) {
        case KIND.text:
          return nextText();
        case KIND.number:
          return numbers[n++]!;
        case KIND.true:
          return true;
        case KIND.false:
          return false;
        case KIND.other:
          return others[o++]!;
        default:
          return null;
      }
    };
    let extra = 0;
    for (let r = 0, at = 0; at < rows.length; r += 1, at += ROW_NUMBERS) {
      const special = batch.extras[extra]?.[0] === r ? batch.extras[extra++]![1] : undefined;
      const location: Location = {
        text: nextText(),
        source: special?.source ?? this.source,
        line: rows[at]!,
      };
      if (sheet !== undefined) location.sheet = sheet;
      const index = rows[at + 1]!;
      const tag = rows[at + 2]!;
      let row: SourceRow;
      if (tag >= 0) {
        const headers = this.lists[tag]!;
        const values = new Array<Cell>(headers.length);
        for (let i = 0; i < headers.length; i += 1) values[i] = nextCell();
        row = new TableRow(location, values, headers, index);
      } else {
        const cells = Object.create(null) as Record<string, Cell>;
        for (let count = -tag - 1; count > 0; count -= 1) {
          const key = nextText();
          cells[key] = nextCell();
        }
        row = { location, cells, index };
      }
      if (special?.error) row.error = special.error;
      out.push(row);
    }
    return out;
  }
}

function errorFrom(message: ErrorMessage): Error {
  if (message.code === undefined)
    return new CatalogIoError('SOURCE_UNREADABLE', `Cannot read the source: ${message.message}`);
  // The message already names the location; the fields are kept for callers that read them.
  const error = new CatalogIoError(message.code as ErrorCode, message.message, message.details ?? {});
  if (message.location !== undefined) Object.assign(error, { location: message.location });
  return error;
}

/**
 * The compiled worker is a `.js` file next to this one. Run from TypeScript sources (tsx, vitest), the
 * thread first registers tsx's loader, which a worker's entry does not get from its parent.
 */
function startWorker(input: ThreadInput): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./worker.js', here), { workerData: input });
  const entry = new URL('./worker.ts', here).href;
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: input });
}
