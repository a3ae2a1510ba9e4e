// Rows that a reader core makes a batch at a time (all the rows of one chunk of text), handed out one
// by one. Rows already made are taken without a promise each (`takeBuffered`): a generator or a promise
// per row cost more than reading the row.
import type { BufferedRows, SourceRow } from './types.js';

export class BatchedRows implements AsyncIterableIterator<SourceRow>, BufferedRows {
  private readonly batches: AsyncIterator<SourceRow[]>;
  private batch: SourceRow[] = [];
  private taken = 0;
  private filling: Promise<IteratorResult<SourceRow>> | undefined;
  private finished = false;
  /** Rows made so far (handed out or not): against the bytes read, they tell the rows per byte. */
  made = 0;

  /** `batches` yields no empty batch; a failure it throws comes after the rows it yielded before. */
  constructor(batches: AsyncIterable<SourceRow[]>) {
    this.batches = batches[Symbol.asyncIterator]();
  }

  private readonly nextAfter = () => this.next();

  [Symbol.asyncIterator](): this {
    return this;
  }

  takeBuffered(): SourceRow | undefined {
    if (this.filling || this.taken >= this.batch.length) return undefined;
    return this.batch[this.taken++];
  }

  next(): Promise<IteratorResult<SourceRow>> {
    // Calls made before the previous one settled wait for it, as a generator's would.
    if (this.filling) return this.filling.then(this.nextAfter, this.nextAfter);
    if (this.taken < this.batch.length)
      return Promise.resolve({ done: false, value: this.batch[this.taken++]! });
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    this.filling = this.fill().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  async return(): Promise<IteratorResult<SourceRow>> {
    this.stop();
    await this.batches.return?.();
    return { done: true, value: undefined };
  }

  private async fill(): Promise<IteratorResult<SourceRow>> {
    let next: IteratorResult<SourceRow[]>;
    try {
      next = await this.batches.next();
    } catch (err) {
      this.stop();
      throw err;
    }
    // return() may have been called meanwhile.
    if (next.done || this.finished) {
      this.stop();
      return { done: true, value: undefined };
    }
    this.batch = next.value;
    this.made += this.batch.length;
    this.taken = 1;
    return { done: false, value: this.batch[0]! };
  }

  private stop(): void {
    this.finished = true;
    this.batch = [];
    this.taken = 0;
  }
}

/**
 * Pulls rows from any reader, taking the ones it already holds without a promise:
 * `for (;;) { const row = puller.take() ?? (await puller.next()); if (!row) break; ... }`.
 */
export class RowPuller {
  private readonly iterator: AsyncIterator<SourceRow> & Partial<BufferedRows>;

  constructor(rows: AsyncIterable<SourceRow>) {
    this.iterator = rows[Symbol.asyncIterator]();
  }

  /** The next row when the reader already holds it, else undefined (then call `next()`). */
  take(): SourceRow | undefined {
    return this.iterator.takeBuffered?.();
  }

  /** The next row, or undefined at the end. */
  async next(): Promise<SourceRow | undefined> {
    const next = await this.iterator.next();
    return next.done ? undefined : next.value;
  }
}
