// Reading on a second thread, when asked: the source is read and parsed by a worker thread while this
// thread maps, validates and writes. The rows that arrive are the reader's rows (same cells, locations
// and row errors); standard input and URLs are read in this thread.
import type { Worker } from 'node:worker_threads';
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
import { startThread } from './start-thread.js';

/**
 * `on`: read and parse a local file on a worker thread; `off` (the default): in this thread. Standard
 * input and URLs are always read in this thread. Since reading got cheaper than handing rows between
 * threads, the second thread no longer pays for validate on two cores (bench/validate.ts measures both).
 */
export type ReadThread = 'on' | 'off';

export const READ_THREAD_MODES: readonly ReadThread[] = ['on', 'off'];

const BATCH_ROWS = 1000;
const MAX_IN_FLIGHT = 4;

/** Opens the source like openSource(), reading it on a worker thread when asked to (see ReadThread). */
export async function openSourceThreaded(
  spec: string,
  options: ReaderOptions = {},
  mode: ReadThread = 'off',
): Promise<OpenedSource> {
  if (mode === 'off' || spec === '-' || /^https?:\/\//i.test(spec) || options.stdin)
    return openSource(spec, options);
  const { stdin: _, ...plain } = options;
  return openOnThread({ spec, options: plain, batchRows: BATCH_ROWS, maxInFlight: MAX_IN_FLIGHT });
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
      if (message.type === 'error') {
        for (const note of message.notes ?? []) if (!notes.includes(note)) notes.push(note);
        throw errorFrom(message);
      }
      if (message.type !== 'rows') continue;
      control({ type: 'ack' });
      bytesRead = message.bytesRead;
      if (message.headers) headers.splice(0, headers.length, ...message.headers);
      decoder.start(message);
      if (decoder.hasRow()) return true;
    }
  };

  const rows: AsyncIterableIterator<SourceRow> & BufferedRows = {
    [Symbol.asyncIterator]() {
      return this;
    },
    takeBuffered() {
      return decoder.hasRow() ? decoder.row() : undefined;
    },
    async next() {
      if (decoder.hasRow()) return { done: false, value: decoder.row() };
      if (done) return { done: true, value: undefined };
      try {
        if (await refill()) return { done: false, value: decoder.row() };
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
      decoder.clear();
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
      decoder.clear();
      return close();
    },
  };
}

/**
 * Turns a batch back into rows, one row when it is asked for: a row made just before it is used dies
 * young, where a whole batch made at once would outlive the young generation and crowd the old one.
 * Table rows share their header list; keyed rows get their record.
 */
class BatchDecoder {
  private readonly lists: string[][] = [];
  private batch: RowsMessage | undefined;
  /** The next row's place in the batch, and cursors into its texts, cell kinds, numbers and other values. */
  private r = 0;
  private at = 0;
  private t = 0;
  private k = 0;
  private n = 0;
  private o = 0;
  private extra = 0;

  constructor(private readonly source: string) {}

  start(batch: RowsMessage): void {
    for (const list of batch.newHeaderLists) this.lists.push(list);
    this.batch = batch;
    this.r = this.at = this.t = this.k = this.n = this.o = this.extra = 0;
  }

  clear(): void {
    this.batch = undefined;
  }

  hasRow(): boolean {
    return this.batch !== undefined && this.at < this.batch.rows.length;
  }

  /** The next row; call only when `hasRow()`. */
  row(): SourceRow {
    const batch = this.batch!;
    const { rows, sheet, extras } = batch;
    const special = extras[this.extra]?.[0] === this.r ? extras[this.extra++]![1] : undefined;
    const location: Location = {
      text: this.nextText(batch),
      source: special?.source ?? this.source,
      line: rows[this.at]!,
    };
    if (sheet !== undefined) location.sheet = sheet;
    const index = rows[this.at + 1]!;
    const tag = rows[this.at + 2]!;
    this.at += ROW_NUMBERS;
    this.r += 1;
    let row: SourceRow;
    if (tag >= 0) {
      const headers = this.lists[tag]!;
      const values = new Array<Cell>(headers.length);
      for (let i = 0; i < headers.length; i += 1) values[i] = this.nextCell(batch);
      row = new TableRow(location, values, headers, index);
    } else {
      const cells = Object.create(null) as Record<string, Cell>;
      for (let count = -tag - 1; count > 0; count -= 1) {
        const key = this.nextText(batch);
        cells[key] = this.nextCell(batch);
      }
      row = { location, cells, index };
    }
    if (special?.error) row.error = special.error;
    if (special?.escapedQuotes) row.escapedQuotes = special.escapedQuotes;
    return row;
  }

  private nextText(batch: RowsMessage): string {
    const { ends, text } = batch;
    const t = this.t++;
    return text.slice(t === 0 ? 0 : ends[t - 1]!, ends[t]!);
  }

  private nextCell(batch: RowsMessage): Cell {
    switch (batch.kinds[this.k++]) {
      case KIND.text:
        return this.nextText(batch);
      case KIND.number:
        return batch.numbers[this.n++]!;
      case KIND.true:
        return true;
      case KIND.false:
        return false;
      case KIND.other:
        return batch.others[this.o++]!;
      default:
        return null;
    }
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

function startWorker(input: ThreadInput): Worker {
  // The thread's garbage is short-lived (texts of one batch): a small young generation keeps its memory
  // down at no cost in speed.
  return startThread(import.meta.url, 'worker', {
    workerData: input,
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
}
