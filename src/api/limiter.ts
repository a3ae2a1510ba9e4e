// One limiter per run, shared by the catalog and DAM clients: at most `concurrency` requests in
// flight (a counter and a queue) and at most `requests` started in ANY `windowSeconds` (a sliding window, as the
// service counts them: a fixed window refilled every 10 s would let up to twice the limit through
// around each refill and collect 429s). The defaults match the real service: 50 requests per 10 s.
// Every attempt takes a slot, retries included: the service counts them too.
// The concurrency gate is a plain counter and queue: a request starts in the same tick a slot frees
// (a scheduler that yields to a timer between steps adds milliseconds to every request).

export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

export const LIMIT_DEFAULTS = Object.freeze({
  concurrency: 8,
  rateLimit: Object.freeze({ requests: 50, windowSeconds: 10 }) as Readonly<RateLimit>,
});

/**
 * Added to the window: a request starts here but is counted where it arrives, and two requests can
 * take different times to get there. 2% plus 100 ms keeps the service's count under its limit.
 */
const WINDOW_MARGIN = { ratio: 0.02, ms: 100 };

export interface LimiterOptions {
  concurrency?: number;
  /** `null` turns the rate limit off (a local sandbox without one). */
  rateLimit?: RateLimit | null;
}

/**
 * What the transport asks of a limiter: this run's own (RunLimiter) or one shared by every process
 * that works for the tenant (`--redis`: src/redis/limiter.ts).
 */
export interface RequestLimiter {
  /** Runs `fn` when a request may start. */
  schedule<T>(fn: () => Promise<T>): Promise<T>;
  /** Stops: waiting jobs are dropped (they reject), running ones finish. */
  stop(options: { dropWaitingJobs: boolean }): Promise<void>;
}

/** The window margin applied to a rate: the least time between two request starts that keeps it. */
export function windowWithMargin(rate: RateLimit): number {
  return rate.windowSeconds * 1000 * (1 + WINDOW_MARGIN.ratio) + WINDOW_MARGIN.ms;
}

export class RunLimiter implements RequestLimiter {
  private readonly gate: ConcurrencyGate;
  private readonly window: SlidingWindow | undefined;

  constructor(options: LimiterOptions = {}) {
    const rate = options.rateLimit === undefined ? LIMIT_DEFAULTS.rateLimit : options.rateLimit;
    this.gate = new ConcurrencyGate(options.concurrency ?? LIMIT_DEFAULTS.concurrency);
    if (rate) {
      this.window = new SlidingWindow(rate.requests, windowWithMargin(rate));
    }
  }

  /** Runs `fn` when a concurrency slot and a rate slot are free. */
  schedule<T>(fn: () => Promise<T>): Promise<T> {
    const window = this.window;
    if (!window) return this.gate.run(fn);
    return this.gate.run(async () => {
      await window.take();
      return fn();
    });
  }

  /** Stops: waiting jobs are dropped (they reject), running ones finish. */
  async stop(options: { dropWaitingJobs: boolean }): Promise<void> {
    this.window?.close();
    await this.gate.stop(options.dropWaitingJobs);
  }
}

/** At most `limit` jobs running; the others wait in order. */
class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<{ start: () => void; drop: (err: Error) => void }> = [];
  private stopped = false;
  private idle: (() => void) | undefined;

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.stopped) throw new Error('the run is over: request not sent');
    // A waiting job is handed the slot of the one that ends, so no newcomer can slip in between.
    if (this.running >= this.limit) {
      await new Promise<void>((start, drop) => this.waiting.push({ start, drop }));
    } else this.running += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next.start();
      else {
        this.running -= 1;
        if (this.running === 0) this.idle?.();
      }
    }
  }

  /** Refuses new jobs; drops the waiting ones (or lets them run) and resolves when none is running. */
  async stop(dropWaiting: boolean): Promise<void> {
    this.stopped = true;
    if (dropWaiting) {
      const error = new Error('the run is over: request not sent');
      for (const job of this.waiting.splice(0)) job.drop(error);
    }
    if (this.running === 0 && this.waiting.length === 0) return;
    await new Promise<void>((resolve) => {
      this.idle = resolve;
    });
  }
}

export function createLimiter(options: LimiterOptions = {}): RunLimiter {
  return new RunLimiter(options);
}

/** The start times of the last `limit` requests; a new one waits until the oldest leaves the window. */
class SlidingWindow {
  private readonly starts: number[] = [];
  private tail: Promise<void> = Promise.resolve();
  private closed = false;
  /** The wait in progress, so close() can end it at once. */
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Resolves when one more request may start; rejects once the run is closed. Callers are served in order. */
  take(): Promise<void> {
    const turn = this.tail.then(() => this.waitForSlot());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  close(): void {
    this.closed = true;
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.wake();
    }
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      if (this.closed) throw new Error('the run is over: request not sent');
      const now = Date.now();
      while (this.starts.length > 0 && this.starts[0]! <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.limit) {
        this.starts.push(now);
        return;
      }
      const wait = Math.max(1, this.starts[0]! + this.windowMs - now);
      await new Promise<void>((resolve) => {
        this.sleeping = { timer: setTimeout(resolve, wait), wake: resolve };
      });
      this.sleeping = undefined;
    }
  }
}
