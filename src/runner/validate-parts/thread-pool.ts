// The part threads of validate in parts (parts.ts): each loads part-worker.ts, says when its model and
// checker are built, and checks the parts it is given, a few at a time; results come back by part.
import type { Worker } from 'node:worker_threads';
import { CatalogIoError } from '../../errors.js';
import { startThread } from '../../readers/thread/start-thread.js';
import type { PartMessage, PartResult, PartThreadInput } from './protocol.js';
import type { Part } from './split.js';

/** Parts given out and not yet written, per thread: enough to keep each busy, few enough to bound memory. */
export const PARTS_PER_THREAD = 4;

/**
 * The part threads. A thread takes parts once it is ready (its model and checker built), at most
 * PARTS_PER_THREAD at a time; results come back by part.
 */
export class ThreadPool {
  private readonly workers: Array<{ worker: Worker; waiting: number; ready: boolean }> = [];
  private readonly pending = new Map<
    number,
    { resolve: (r: PartResult) => void; reject: (e: Error) => void }
  >();
  private seq = 0;
  private failure: Error | undefined;
  private closing = false;

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      const worker = startWorker();
      const entry = { worker, waiting: 0, ready: false };
      worker.on('message', (result: PartResult | 'ready') => {
        if (result === 'ready') {
          entry.ready = true;
          this.wake();
          return;
        }
        entry.waiting--;
        this.checked++;
        const waiting = this.pending.get(result.seq);
        this.pending.delete(result.seq);
        waiting?.resolve(result);
      });
      worker.on('error', (err) =>
        this.fail(new CatalogIoError('INTERNAL', `A validate thread failed: ${err.message}`)),
      );
      worker.on('exit', () => {
        if (!this.closing) this.fail(new CatalogIoError('INTERNAL', 'A validate thread stopped'));
      });
      this.workers.push(entry);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Parts checked by the threads so far. */
  checked = 0;
  private readyWaiters: Array<() => void> = [];

  /** Resolves once every thread is ready (or one failed). */
  ready(): Promise<void> {
    if (this.failure || this.workers.every((w) => w.ready)) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private wake(): void {
    if (!this.failure && !this.workers.every((w) => w.ready)) return;
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  /** What the threads check parts against: the file's header and the run's options. */
  init(input: PartThreadInput): void {
    for (const w of this.workers) w.worker.postMessage(input);
  }

  /**
   * The part's result from a ready thread with room, or undefined when none has room. A buffer of
   * `spares` goes with the part, for its report lines.
   */
  offer(part: Part, spares: ArrayBuffer[]): Promise<PartResult> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    let entry: (typeof this.workers)[number] | undefined;
    for (const w of this.workers)
      if (w.ready && w.waiting < PARTS_PER_THREAD && (!entry || w.waiting < entry.waiting)) entry = w;
    if (!entry) return undefined;
    const seq = this.seq++;
    entry.waiting++;
    const message = partMessage(part, seq, spares.pop());
    const result = new Promise<PartResult>((resolve, reject) => this.pending.set(seq, { resolve, reject }));
    entry.worker.postMessage(message, [
      ...(message.bytes ? [message.bytes] : []),
      ...(message.spare ? [message.spare] : []),
    ]);
    return result;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

/** The part thread (in the bundle: `dist/bin/part-worker.js`). */
function startWorker(): Worker {
  // A small young generation: a part's garbage is short-lived, and the thread's memory stays low.
  return startThread(import.meta.url, 'part-worker', { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
}

/** A part as a thread is given it (the part checker on the main thread takes the same). */
export function partMessage(part: Part, seq: number, spare: ArrayBuffer | undefined): PartMessage {
  return {
    seq,
    slot: part.slot,
    ...(part.slot < 0 && { bytes: part.bytes as ArrayBuffer }),
    length: part.length,
    firstLine: part.firstLine,
    ...(spare && { spare }),
  };
}
