// The reading thread: opens the source and reads and parses it while the other thread maps, validates
// and writes, sending rows in batches (see protocol.ts), at most a few batches ahead (backpressure).
import { parentPort, workerData } from 'node:worker_threads';
import { isCatalogIoError } from '../../errors.js';
import { RowPuller } from '../batched.js';
import { openSource } from '../open.js';
import type { Cell, SourceRow } from '../types.js';
import {
  type ControlMessage,
  type ErrorMessage,
  KIND,
  type ReaderMessage,
  type RowExtra,
  type RowsMessage,
  type ThreadInput,
} from './protocol.js';

const port = parentPort!;
const input = workerData as ThreadInput;
const send = (message: ReaderMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let inFlight = 0;
let stopped = false;
let wake: (() => void) | undefined;
port.on('message', (message: ControlMessage) => {
  if (message.type === 'ack') inFlight -= 1;
  else stopped = true;
  wake?.();
  wake = undefined;
});

/** A typed array that grows: a batch's numbers are written in place, then moved to the other thread. */
class Growing<T extends Int32Array | Uint8Array | Float64Array> {
  length = 0;
  constructor(
    public array: T,
    private readonly make: (size: number) => T,
  ) {}

  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }

  /** The filled part, in a buffer of its own (so it can be moved). */
  take(): T {
    return this.array.slice(0, this.length) as T;
  }
}

/** Rows gathered for one message. */
class Batch {
  readonly rows = new Growing(new Int32Array(3 * 1024), (n) => new Int32Array(n));
  readonly ends = new Growing(new Int32Array(16 * 1024), (n) => new Int32Array(n));
  readonly kinds = new Growing(new Uint8Array(16 * 1024), (n) => new Uint8Array(n));
  readonly numbers = new Growing(new Float64Array(256), (n) => new Float64Array(n));
  texts: string[] = [];
  length = 0;
  others: Cell[] = [];
  extras: Array<[number, RowExtra]> = [];
  newHeaderLists: string[][] = [];
  sheet: string | undefined;
  count = 0;

  text(value: string): void {
    this.texts.push(value);
    this.length += value.length;
    this.ends.push(this.length);
  }

  cell(value: Cell | undefined): void {
    if (typeof value === 'string') {
      this.kinds.push(KIND.text);
      this.text(value);
    } else if (value === null || value === undefined) this.kinds.push(KIND.null);
    else if (typeof value === 'number') {
      this.kinds.push(KIND.number);
      this.numbers.push(value);
    } else if (value === true) this.kinds.push(KIND.true);
    else if (value === false) this.kinds.push(KIND.false);
    else {
      this.kinds.push(KIND.other);
      this.others.push(value);
    }
  }

  message(
    bytesRead: number,
    headers: string[] | undefined,
  ): { message: RowsMessage; transfer: ArrayBuffer[] } {
    const rows = this.rows.take();
    const ends = this.ends.take();
    const kinds = this.kinds.take();
    const numbers = this.numbers.take();
    const message: RowsMessage = {
      type: 'rows',
      rows,
      text: this.texts.join(''),
      ends,
      kinds,
      numbers,
      others: this.others,
      extras: this.extras,
      newHeaderLists: this.newHeaderLists,
      bytesRead,
      ...(this.sheet !== undefined && { sheet: this.sheet }),
      ...(headers && { headers }),
    };
    return { message, transfer: [rows.buffer, ends.buffer, kinds.buffer, numbers.buffer] as ArrayBuffer[] };
  }

  /** Empties the batch for the next rows; the typed arrays are kept (their filled part was copied out). */
  reset(): void {
    this.rows.length = 0;
    this.ends.length = 0;
    this.kinds.length = 0;
    this.numbers.length = 0;
    this.texts = [];
    this.length = 0;
    this.others = [];
    this.extras = [];
    this.newHeaderLists = [];
    this.count = 0;
  }
}

/** The opened source's notes: a failure after some rows carries those found while reading them. */
let notesSoFar: readonly string[] = [];

async function run(): Promise<void> {
  const opened = await openSource(input.spec, input.options);
  notesSoFar = opened.notes;
  try {
    send({
      type: 'opened',
      format: opened.format,
      encoding: opened.encoding,
      delimiter: opened.delimiter,
      headers: [...opened.headers],
      notes: [...opened.notes],
      source: opened.source,
      totalBytes: opened.totalBytes,
    });
    const listIds = new Map<readonly string[], number>();
    const batch = new Batch();
    let headerCount = opened.headers.length;
    const flush = async () => {
      while (inFlight >= input.maxInFlight && !stopped) await new Promise<void>((r) => (wake = r));
      if (stopped) return;
      const grown = opened.headers.length !== headerCount;
      headerCount = opened.headers.length;
      const { message, transfer } = batch.message(
        opened.bytesRead(),
        grown ? [...opened.headers] : undefined,
      );
      send(message, transfer);
      inFlight += 1;
      batch.reset();
    };
    const add = (row: SourceRow) => {
      const { location, values, headers } = row;
      if (location.source !== opened.source || row.error || row.escapedQuotes) {
        const extra: RowExtra = {};
        if (location.source !== opened.source) extra.source = location.source;
        if (row.error) extra.error = row.error;
        if (row.escapedQuotes) extra.escapedQuotes = row.escapedQuotes;
        batch.extras.push([batch.count, extra]);
      }
      batch.text(location.text);
      if (values && headers) {
        let id = listIds.get(headers);
        if (id === undefined) {
          id = listIds.size;
          listIds.set(headers, id);
          batch.newHeaderLists.push([...headers]);
        }
        batch.rows.push(location.line);
        batch.rows.push(row.index);
        batch.rows.push(id);
        for (let i = 0; i < headers.length; i++) batch.cell(values[i]);
      } else {
        const { cells } = row;
        const at = batch.rows.length;
        batch.rows.push(location.line);
        batch.rows.push(row.index);
        batch.rows.push(0);
        let count = 0;
        for (const key in cells) {
          batch.text(key);
          batch.cell(cells[key]);
          count += 1;
        }
        batch.rows.array[at + 2] = -count - 1;
      }
      batch.count += 1;
    };
    try {
      const rows = new RowPuller(opened.rows);
      for (;;) {
        const row = rows.take() ?? (await rows.next());
        if (!row) break;
        // A batch holds one sheet's rows: the sheet travels once per batch.
        if (batch.count > 0 && batch.sheet !== row.location.sheet) await flush();
        if (stopped) return;
        batch.sheet = row.location.sheet;
        add(row);
        if (batch.count >= input.batchRows) await flush();
        if (stopped) return;
      }
    } catch (err) {
      // The rows read before the failure go first: the inline reader hands them out before it throws.
      if (batch.count > 0) await flush();
      throw err;
    }
    if (batch.count > 0) await flush();
    if (!stopped) send({ type: 'end', bytesRead: opened.bytesRead(), notes: [...opened.notes] });
  } finally {
    await opened.close();
  }
}

run().then(
  () => port.close(),
  (err: unknown) => {
    const message: ErrorMessage = { type: 'error', message: (err as Error)?.message ?? String(err) };
    if (notesSoFar.length > 0) message.notes = [...notesSoFar];
    if (isCatalogIoError(err)) {
      message.code = err.code;
      if (err.location !== undefined) message.location = err.location;
      message.details = err.details;
    }
    send(message);
    port.close();
  },
);
