// Time limits of one request. undici's own timeouts wait for the headers and then for each body
// chunk, so a service that trickles a byte now and then holds a request for ever; here one deadline
// covers a whole try (connect, headers and the complete body), and a budget covers all tries of a
// request and the waits between them.

/** The code of a try that ran past its deadline (kept as `errno` on the ApiError, like undici's codes). */
export const ATTEMPT_TIMEOUT = 'ATTEMPT_TIMEOUT';

export class AttemptTimeoutError extends Error {
  readonly code = ATTEMPT_TIMEOUT;
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
  }
}

/**
 * An AbortSignal that fires `timeoutMs` after the call, with an AttemptTimeoutError as its reason.
 * `clear()` once the try is over, so no timer outlives it.
 */
export function attemptDeadline(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** What one request may still spend: its tries and the waits between them, not its turn in the queue. */
export class RequestBudget {
  private spentMs = 0;

  constructor(readonly totalMs: number) {}

  spend(ms: number): void {
    this.spentMs += Math.max(0, ms);
  }

  get spent(): number {
    return this.spentMs;
  }

  remaining(): number {
    return Math.max(0, this.totalMs - this.spentMs);
  }
}

/** `30 s`, `1.5 s`, `250 ms`, `2 min`: a duration as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}
