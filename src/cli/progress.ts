// Progress of long work on stderr: a bar on a terminal (cli-progress), a plain line every 10 s
// otherwise (cron logs), nothing with --quiet or --json.
import cliProgress from 'cli-progress';
import type { Output } from './output.js';

export interface ProgressState {
  /** Rows (or items) done. */
  done: number;
  /** Known total items, when there is one (export: `@count`). */
  total?: number;
  /** Bytes read and the source's size, for an ETA when the row count is unknown. */
  bytesRead?: number;
  totalBytes?: number;
  /** Short counts to show, e.g. `created 12 · updated 3`. */
  counts?: string;
  requests?: number;
  rateLimited?: number;
}

export interface Progress {
  update(state: ProgressState): void;
  stop(): void;
}

const PLAIN_EVERY_MS = 10_000;

export function createProgress(out: Output, label: string, options: { quiet: boolean }): Progress {
  if (options.quiet) return { update() {}, stop() {} };
  const started = Date.now();
  if (!out.isTTY || !out.terminal) {
    let next = started + PLAIN_EVERY_MS;
    let last: ProgressState | undefined;
    return {
      update(state) {
        last = state;
        const now = Date.now();
        if (now < next) return;
        next = now + PLAIN_EVERY_MS;
        out.error(plainLine(label, state, now - started));
      },
      stop() {
        if (last && Date.now() - started >= PLAIN_EVERY_MS)
          out.error(plainLine(label, last, Date.now() - started));
      },
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {done} rows | {speed} rows/s | {counts} | {requests} req, {limited} × 429 | ETA {remaining}`,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 50,
      stream: out.terminal,
    },
    cliProgress.Presets.shades_classic,
  );
  let startedBar = false;
  return {
    update(state) {
      // Done so far as a share of the known total, else of the source's bytes. The reader reads a little
      // ahead of the work, so a share from bytes stops at 99% until the end.
      const fraction =
        state.total !== undefined
          ? state.done / Math.max(1, state.total)
          : state.totalBytes
            ? Math.min(0.99, (state.bytesRead ?? 0) / state.totalBytes)
            : undefined;
      const elapsed = Math.max(0.001, (Date.now() - started) / 1000);
      const payload = {
        done: state.done,
        speed: Math.round(state.done / elapsed),
        counts: state.counts ?? '',
        requests: state.requests ?? 0,
        limited: state.rateLimited ?? 0,
        remaining: fraction && fraction > 0 ? duration((elapsed * (1 - fraction)) / fraction) : '?',
      };
      const value = Math.round((fraction ?? 0) * 1000);
      if (!startedBar) {
        bar.start(1000, value, payload);
        startedBar = true;
      } else bar.update(value, payload);
    },
    stop() {
      if (startedBar) bar.stop();
    },
  };
}

function plainLine(label: string, s: ProgressState, elapsedMs: number): string {
  const rate = Math.round(s.done / Math.max(0.001, elapsedMs / 1000));
  const of = s.total !== undefined ? ` of ${s.total}` : '';
  const pct =
    s.total === undefined && s.totalBytes
      ? ` (${Math.round(((s.bytesRead ?? 0) / s.totalBytes) * 100)}% of the source)`
      : '';
  const req =
    s.requests !== undefined
      ? `, ${s.requests} requests${s.rateLimited ? `, ${s.rateLimited} × 429` : ''}`
      : '';
  return `${label}: ${s.done}${of} rows${pct}, ${rate} rows/s${s.counts ? `, ${s.counts}` : ''}${req}`;
}

/** `42s`, `3m05s`, `1h02m`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
