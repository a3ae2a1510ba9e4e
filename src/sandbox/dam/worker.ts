// The background worker that finishes image processing `processingMs` after an upload. Every job
// waits the same time, so a FIFO queue is already in due order and one timer is enough.

export class ProcessingWorker {
  private readonly queue: Array<{ reference: string; dueAt: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly delayMs: number,
    /** Called once per job when it is due; the owner decides Ok or Er. */
    private readonly process: (reference: string) => void,
  ) {}

  enqueue(reference: string): void {
    if (this.closed) return;
    this.queue.push({ reference, dueAt: Date.now() + this.delayMs });
    this.arm();
  }

  clear(): void {
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  close(): void {
    this.closed = true;
    this.clear();
  }

  private arm(): void {
    if (this.timer || this.queue.length === 0) return;
    const wait = Math.max(0, this.queue[0]!.dueAt - Date.now());
    this.timer = setTimeout(() => this.run(), wait);
    // The worker alone must not keep a process alive.
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    const now = Date.now();
    while (this.queue.length > 0 && this.queue[0]!.dueAt <= now) this.process(this.queue.shift()!.reference);
    this.arm();
  }
}
