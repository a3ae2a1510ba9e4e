// One limiter per run, shared by the catalog and DAM clients: at most `concurrency` requests in
// flight (a counter and a queue) and at most `requests` started in ANY `windowSeconds` (a sliding window, as the
// service counts them: a fixed window refilled every 10 s would let up to twice the limit through
// around each refill and collect 429s). The defaults match the real service: 50 requests per 10 s.
// Every attempt takes a slot, retries included: the service counts them too.
// The concurrency gate is a plain counter and queue: a request starts in the same tick a slot frees
// (a scheduler that yields to a timer between steps adds milliseconds to every request).
// The rate is a ceiling, not a promise: the service's own limit may be lower (or another client
// spends the tenant's quota), and a client that keeps its pace then collects 429s in every window.
// So the pace adapts (AdaptivePace, below): halved on a 429, raised back by one request per window's
// worth of accepted ones, never above the configured rate.
import type { PaceNow } from './pace.js';

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
  /**
   * Told of each answer from the service: `limited` for a 429, with when that try was started
   * (`performance.now()`), so the pace can follow what the service accepts.
   */
  answered?(limited: boolean, startedAt: number): void;
  /** Requests per second the pace lets start now (window margin included); undefined without a limit. */
  requestRate?(): number | undefined;
  /** The pace now, requests per window, and the limit it is below or at; undefined without a limit. */
  paceNow?(): PaceNow | undefined;
}

/** The window margin applied to a rate: the least time between two request starts that keeps it. */
export function windowWithMargin(rate: RateLimit): number {
  return rate.windowSeconds * 1000 * (1 + WINDOW_MARGIN.ratio) + WINDOW_MARGIN.ms;
}

/**
 * The requests per window a limiter lets start, adapted to what the service accepts (AIMD, as TCP
 * does with its window): a 429 halves it, each accepted answer adds 1/pace (so one request more per
 * window of accepted ones), from 1 up to the configured limit and never above it. Halving finds a
 * lower limit in a few windows, and the slow climb back costs one 429 every many windows where a fixed
 * pace costs some in every window. A 429 cuts only for a try started `holdMs` or more after the last
 * cut: earlier ones were sent at the old pace, or met a service whose window still held requests sent
 * at it, and say nothing of the new pace. So one burst of 429s is one cut, not a collapse to 1.
 * The run's sliding window needs no hold (0): after a cut it starts nothing until its own window, which
 * counts the refused tries too, has room at the new pace. Evenly spaced starts (through Redis) hold a
 * window: the next start after a cut comes at once, into the service's full window.
 */
export class AdaptivePace {
  private current: number;
  /** When the pace was last cut (`performance.now()`). */
  private cutAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly ceiling: number,
    /** How long after a cut a try must start for its 429 to cut again, ms. */
    private readonly holdMs = 0,
  ) {
    this.current = ceiling;
  }

  /** Requests per window now: a whole number from 1 to the ceiling. */
  get requests(): number {
    return Math.max(1, Math.floor(this.current));
  }

  /** A 429 for a try started at `startedAt`: whether the pace was cut. */
  limited(startedAt: number, now = performance.now()): boolean {
    if (startedAt < this.cutAt + this.holdMs) return false;
    this.current = Math.max(1, this.current / 2);
    this.cutAt = now;
    return true;
  }

  /** An answer that was not a 429: the service took the request at this pace. */
  accepted(): void {
    this.current = Math.min(this.ceiling, this.current + 1 / this.current);
  }
}

export class RunLimiter implements RequestLimiter {
  private readonly gate: ConcurrencyGate;
  private readonly window: SlidingWindow | undefined;
  private readonly rate: RateLimit | undefined;
  /** Undefined without a rate limit: there is no pace to lower. */
  readonly pace: AdaptivePace | undefined;

  constructor(options: LimiterOptions = {}) {
    const rate = options.rateLimit === undefined ? LIMIT_DEFAULTS.rateLimit : options.rateLimit;
    this.gate = new ConcurrencyGate(options.concurrency ?? LIMIT_DEFAULTS.concurrency);
    if (rate) {
      const pace = new AdaptivePace(rate.requests);
      this.rate = rate;
      this.pace = pace;
      this.window = new SlidingWindow(() => pace.requests, windowWithMargin(rate));
    }
  }

  answered(limited: boolean, startedAt: number): void {
    if (limited) this.pace?.limited(startedAt);
    else this.pace?.accepted();
  }

  requestRate(): number | undefined {
    if (!this.rate || !this.pace) return undefined;
    return (this.pace.requests * 1000) / windowWithMargin(this.rate);
  }

  paceNow(): PaceNow | undefined {
    if (!this.rate || !this.pace) return undefined;
    return {
      requests: this.pace.requests,
      limit: this.rate.requests,
      windowSeconds: this.rate.windowSeconds,
    };
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

/**
 * The start times of the last `limit()` requests; a new one waits until the oldest leaves the window.
 * The limit is asked at each turn: a pace just lowered holds the next start until the window has room
 * at the new pace.
 */
class SlidingWindow {
  private readonly starts: number[] = [];
  private tail: Promise<void> = Promise.resolve();
  private closed = false;
  /** The wait in progress, so close() can end it at once. */
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  constructor(
    private readonly limit: () => number,
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
      if (this.starts.length < this.limit()) {
        this.starts.push(now);
        return;
      }
      // The oldest start that must leave for a turn at the current limit (more than one after a cut).
      const wait = Math.max(1, this.starts[this.starts.length - this.limit()]! + this.windowMs - now);
      await new Promise<void>((resolve) => {
        this.sleeping = { timer: setTimeout(resolve, wait), wake: resolve };
      });
      this.sleeping = undefined;
    }
  }
}
