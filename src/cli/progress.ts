// Progress of long work on stderr: a bar on a terminal (cli-progress), a plain line every 10 s
// otherwise (cron logs), nothing with --quiet or --json. The work only reports its state; a timer draws
// it, so the bar moves (and the clock runs) between batches and a log line comes every 10 s even while
// the work waits on the service.
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';
import type { Output } from './output.js';

export interface ProgressState {
  /** Source rows (or items) done. */
  done: number;
  /** Known total items, when there is one (export: `@count`). */
  total?: number;
  /** Bytes read and the source's size, for a share of the work when the row count is unknown. */
  bytesRead?: number;
  totalBytes?: number;
  /**
   * Rows the reader has handed out (done + in flight). With the bytes it tells the rows per byte, so the
   * total is estimated as rows: the reader reads ahead of the work, and a share of bytes alone runs ahead.
   */
  rowsRead?: number;
  /** Rows the reader made from the bytes read, handed out or not: the rows per byte, when the reader knows. */
  rowsMade?: number;
  /** Short counts to show, e.g. `created 12 · updated 3`. */
  counts?: string;
  requests?: number;
  rateLimited?: number;
  /**
   * Requests per second the service's limit lets start, when there is one. The ETA then also counts the
   * requests still to send at that pace: at 50 per 10 s the limit, not the rows seen so far, sets the time.
   */
  requestRate?: number;
}

/** Something the work waits for before it can go on: a service that cannot be reached. */
export interface Wait {
  /** What is waited for, e.g. `the Catalog API`. */
  what: string;
  since: Date;
  /** When the wait is given up (the outage budget runs out), when known. */
  until?: Date;
}

export interface Progress {
  update(state: ProgressState): void;
  /**
   * What the work waits for now (none: it goes on). While it waits, the line keeps the rows and counts
   * done so far and says what it waits for, since when, for how long so far and until when, instead of
   * a rate and an ETA that would only fall and grow with the wait.
   */
  waiting(waits: readonly Wait[]): void;
  /** Ends the display for good: later updates are not drawn (a stopped run is not redrawn at 100%). */
  stop(): void;
}

export interface ProgressOptions {
  quiet: boolean;
}

const PLAIN_EVERY_MS = 10_000;
const BAR_EVERY_MS = 250;
/** The rate (and so the ETA) is measured over this much recent time: it follows changes, yet is steady. */
const RATE_WINDOW_MS = 30_000;

export function createProgress(out: Output, label: string, options: ProgressOptions): Progress {
  if (options.quiet) return { update() {}, waiting() {}, stop() {} };
  return out.isTTY && out.terminal ? barProgress(out.terminal, label) : plainProgress(out, label);
}

/** Off a terminal: one line every 10 s from the first update, and the last state when the work ends. */
function plainProgress(out: Output, label: string): Progress {
  const started = Date.now();
  const clock = new EtaClock(started);
  let last: ProgressState | undefined;
  let timer: NodeJS.Timeout | undefined;
  let printed = false;
  let ended = false;
  let waits: readonly Wait[] = [];
  const print = () => {
    const now = Date.now();
    // A wait before the work's first report (the schemas' read) is told too, with no rows yet.
    if (!last && waits.length === 0) return;
    printed = true;
    out.error(
      waits.length > 0
        ? `${label}: ${last ? countsLine(last) : 'no rows yet'}; ${waitingText(waits, now)}`
        : plainLine(label, last!, clock, now),
    );
  };
  const start = () => {
    if (timer) return;
    timer = setInterval(() => {
      if (last) clock.tick(Date.now(), last.done);
      print();
    }, plainEveryMs());
    timer.unref();
  };
  return {
    waiting(now) {
      if (ended) return;
      waits = [...now];
      if (waits.length > 0) start();
    },
    update(state) {
      if (ended) return;
      last = state;
      clock.update(Date.now(), state);
      start();
    },
    stop() {
      if (ended) return;
      ended = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      // A short run says nothing; a long one ends its log with the final count.
      if (printed || Date.now() - started >= plainEveryMs()) print();
      last = undefined;
    },
  };
}

function barProgress(terminal: NodeJS.WritableStream, label: string): Progress {
  // Loaded only for a terminal: a cron run or --json never pays for it at start-up.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
  const clock = new EtaClock(Date.now());
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {line}`,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      stream: terminal,
    },
    cliProgress.Presets.shades_classic,
  );
  let last: ProgressState | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  let waits: readonly Wait[] = [];
  const draw = () => {
    if (!last) return;
    const now = Date.now();
    clock.tick(now, last.done);
    const { fraction, total } = estimate(last);
    const of = total !== undefined && last.total !== undefined ? ` of ${total}` : '';
    const traffic = `${last.counts ?? ''} | ${last.requests ?? 0} req, ${last.rateLimited ?? 0} × 429`;
    let line: string;
    if (waits.length > 0) {
      // No rate nor ETA while waiting: they would only fall and grow with the wait.
      line = `${last.done}${of} rows | ${traffic} | ${waitingText(waits, now)}`;
    } else {
      const eta = clock.remaining(now, last, total);
      line = `${last.done}${of} rows | ${Math.round(clock.rate(now))} rows/s | ${traffic} | ETA ${eta === undefined ? '?' : duration(eta)}`;
    }
    bar.update(Math.round((fraction ?? 0) * 1000), { line });
  };
  return {
    waiting(now) {
      waits = [...now];
    },
    update(state) {
      if (ended) return;
      const first = last === undefined;
      last = state;
      clock.update(Date.now(), state);
      if (first) {
        bar.start(1000, 0, {});
        draw();
        timer = setInterval(draw, BAR_EVERY_MS);
        timer.unref();
      }
    },
    stop() {
      if (ended) return;
      ended = true;
      if (!last) return;
      if (timer) clearInterval(timer);
      draw();
      bar.stop();
      last = undefined;
    },
  };
}

/**
 * The share done and the total in rows: the known total, else rows per byte so far times the source's
 * size. Without rows read, the share of bytes, held below 100% until the end (the reader reads ahead).
 */
export function estimate(state: ProgressState): { fraction?: number; total?: number } {
  if (state.total !== undefined) {
    return { fraction: Math.min(1, state.done / Math.max(1, state.total)), total: state.total };
  }
  const { bytesRead, totalBytes, rowsRead } = state;
  if (!totalBytes || !bytesRead) return {};
  // The rows made from the bytes read when the reader says; else the rows handed out (they lag the bytes).
  const rows = Math.max(state.rowsMade ?? 0, rowsRead ?? 0);
  if (rows > 0) {
    // Everything read and made: the rows made are the total. Else rows per byte so far, times the size.
    const total =
      bytesRead >= totalBytes && state.rowsMade !== undefined
        ? rows
        : Math.max(rows, Math.round((rows * totalBytes) / bytesRead));
    return { fraction: Math.min(1, state.done / total), total };
  }
  const fraction = Math.min(0.99, bytesRead / totalBytes);
  return { fraction, ...(fraction > 0 && { total: Math.round(state.done / fraction) }) };
}

/** Rows per second over the last 30 s (since the start, before that). */
class Meter {
  private readonly samples: Array<{ at: number; done: number }>;

  constructor(started: number, done: number) {
    this.samples = [{ at: started, done }];
  }

  add(at: number, done: number): void {
    const lastSample = this.samples[this.samples.length - 1]!;
    if (at - lastSample.at < BAR_EVERY_MS && this.samples.length > 1) {
      lastSample.done = done;
      return;
    }
    this.samples.push({ at, done });
    while (this.samples.length > 2 && at - this.samples[1]!.at >= RATE_WINDOW_MS) this.samples.shift();
  }

  rate(now: number): number {
    const first = this.samples[0]!;
    const latest = this.samples[this.samples.length - 1]!;
    // At least a second: the first updates of a run would otherwise promise any speed.
    return (latest.done - first.done) / Math.max(1, (now - first.at) / 1000);
  }
}

/**
 * The time left. Where the service's limit sets the pace (the requests since the work began went out at
 * 70% of the limit's rate or more), it is the requests still to send at that pace: requests per row so
 * far times the rows left. Rows per second alone promise too much while a run spends its window's burst,
 * and too little after its start-up. Elsewhere (a tenant with a higher limit, an unchanged feed that
 * sends nothing) our own speed sets the pace: the rows left at the rate of the last 30 s.
 */
export class EtaClock {
  private readonly meter: Meter;
  /** When the work began, as its first update with requests says (a resumed run starts past 0 rows). */
  private base: { at: number; requests: number; done: number } | undefined;
  /** The requests-bound time left, as of `at`. */
  private byRequests: { at: number; seconds: number } | undefined;

  /** `done`: rows already done when the clock starts (a page that opens on a running import). */
  constructor(started: number, done = 0) {
    this.meter = new Meter(started, done);
  }

  update(now: number, state: ProgressState): void {
    this.tick(now, state.done);
    this.byRequests = undefined;
    if (state.requests === undefined || !state.requestRate) return;
    this.base ??= { at: now, requests: state.requests, done: state.done };
    const sent = state.requests - this.base.requests;
    const rowsSince = state.done - this.base.done;
    const { total } = estimate(state);
    if (rowsSince <= 0 || total === undefined) return;
    const paced = sent / Math.max(1, (now - this.base.at) / 1000) >= 0.7 * state.requestRate;
    if (!paced) return;
    this.byRequests = {
      at: now,
      seconds: (Math.max(0, total - state.done) * sent) / rowsSince / state.requestRate,
    };
  }

  tick(now: number, done: number): void {
    this.meter.add(now, done);
  }

  rate(now: number): number {
    return this.meter.rate(now);
  }

  remaining(now: number, state: ProgressState, total: number | undefined): number | undefined {
    if (total === undefined) return undefined;
    // The requests sent since the last update went out at the limit's pace: that time is spent.
    if (this.byRequests) return Math.max(0, this.byRequests.seconds - (now - this.byRequests.at) / 1000);
    const rate = this.rate(now);
    return rate > 0 ? Math.max(0, total - state.done) / rate : undefined;
  }
}

/** Off a terminal, a line this often (CATALOG_IO_PROGRESS_EVERY_MS: a test's shorter period). */
function plainEveryMs(): number {
  const fromEnv = Number(process.env.CATALOG_IO_PROGRESS_EVERY_MS);
  return Number.isFinite(fromEnv) && fromEnv >= 100 ? fromEnv : PLAIN_EVERY_MS;
}

/** The rows done (and their share), counts and requests: what a line says whatever the pace. */
function countsLine(s: ProgressState): string {
  const of = s.total !== undefined ? ` of ${s.total}` : '';
  const { fraction } = estimate(s);
  const pct = s.total === undefined && fraction !== undefined ? ` (${Math.round(fraction * 100)}%)` : '';
  const req =
    s.requests !== undefined
      ? `, ${s.requests} requests${s.rateLimited ? `, ${s.rateLimited} × 429` : ''}`
      : '';
  return `${s.done}${of} rows${pct}${s.counts ? `, ${s.counts}` : ''}${req}`;
}

/**
 * `waiting for the Catalog API since 20:01:02 (2m10s so far, until 20:11:02)`: what the work waits for,
 * for how long so far and, when known, until when (the outage budget's end).
 */
export function waitingText(waits: readonly Wait[], now: number): string {
  return waits
    .map((w) => {
      const sofar = `${duration((now - w.since.getTime()) / 1000)} so far`;
      const until = w.until ? `, until ${clockTime(w.until)}` : '';
      return `waiting for ${w.what} since ${clockTime(w.since)} (${sofar}${until})`;
    })
    .join('; ');
}

/** `20:01:02`, the local time of day (as the outage lines say it). */
function clockTime(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

function plainLine(label: string, s: ProgressState, clock: EtaClock, now: number): string {
  const rate = Math.round(clock.rate(now));
  const of = s.total !== undefined ? ` of ${s.total}` : '';
  const { fraction, total } = estimate(s);
  const pct = s.total === undefined && fraction !== undefined ? ` (${Math.round(fraction * 100)}%)` : '';
  const left = total !== undefined && total > s.done ? clock.remaining(now, s, total) : undefined;
  const eta = left !== undefined ? `, ETA ${duration(left)}` : '';
  const req =
    s.requests !== undefined
      ? `, ${s.requests} requests${s.rateLimited ? `, ${s.rateLimited} × 429` : ''}`
      : '';
  return `${label}: ${s.done}${of} rows${pct}, ${rate} rows/s${eta}${s.counts ? `, ${s.counts}` : ''}${req}`;
}

/** `42s`, `3m05s`, `1h02m`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
