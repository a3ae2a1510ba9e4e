// How a run that writes (import, copy) stops on SIGINT and SIGTERM: the first signal sends no new
// request and gives the requests in flight STOP_GRACE_MS (a write cut short is `not-attempted`, checked
// by the resume); the second cuts them now; the third exits at once, the journal flushed. The run ends
// `interrupted` with its report, and `--resume` goes on from it.
import { EXIT_CODES, type RunStop } from '../runner/import/types.js';

export const STOP_GRACE_MS = 2_000;

type StopSignal = 'SIGINT' | 'SIGTERM';

export interface StopSignalOptions {
  stop: RunStop;
  /** Ends the requests in flight after `graceMs` (0: now). */
  interrupt: (graceMs: number) => void;
  /** Said on stderr. */
  say: (line: string) => void;
  /** Before anything is said (a progress bar would draw over it). */
  quiet?: () => void;
  /** Words after the first signal's line: what the person can do next. */
  hint: (signal: StopSignal) => string;
}

/** Listens for SIGINT and SIGTERM until the returned function is called. */
export function watchStopSignals(options: StopSignalOptions): () => void {
  const { stop, interrupt, say, quiet, hint } = options;
  let signals = 0;
  const onSignal = (signal: StopSignal) => {
    signals += 1;
    if (signals >= 3) {
      stop.flushNow?.();
      process.exit(EXIT_CODES[stop.signal ?? signal]);
    }
    stop.signal ??= signal;
    quiet?.();
    if (signals === 2) {
      interrupt(0);
      say(`${signal}: cutting the requests in flight now`);
      return;
    }
    interrupt(STOP_GRACE_MS);
    say(`${signal}: stopping; requests in flight get ${STOP_GRACE_MS / 1000} s to finish${hint(signal)}`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
