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
  if (!out.isTTY) {
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
      format: `${label} [{bar}] {percentage}% | {value} rows | {speed} rows/s | {counts} | {requests} req, {limited} × 429 | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let startedBar = false;
  return {
    update(state) {
      // Percent from the known total, else from the bytes read of the source.
      const byBytes = state.total === undefined && state.totalBytes ? state.totalBytes : undefined;
      const total = state.total ?? byBytes ?? 0;
      const value = byBytes !== undefined ? (state.bytesRead ?? 0) : state.done;
      const seconds = Math.max(0.001, (Date.now() - started) / 1000);
      const payload = {
        speed: Math.round(state.done / seconds),
        counts: state.counts ?? '',
        requests: state.requests ?? 0,
        limited: state.rateLimited ?? 0,
      };
      if (!startedBar) {
        bar.start(total, value, payload);
        startedBar = true;
      } else {
        bar.setTotal(total);
        bar.update(value, payload);
      }
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
