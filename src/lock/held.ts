// What every lock store hands back once it holds a lock: the `lost` promise its store rejects, and a
// release that runs once however often it is called; and the wait between tries for a lock held.
import { CatalogIoError } from '../errors.js';
import type { AcquireOptions, HeldLock, LockHolder, LockScope } from './types.js';

/** A lock's `lost` promise and the function that rejects it; a loss nobody awaits is not an error. */
export function lossSignal(): { lost: Promise<never>; lose: (err: Error) => void } {
  let lose: (err: Error) => void = () => {};
  const lost = new Promise<never>((_, reject) => {
    lose = reject;
  });
  lost.catch(() => {});
  return { lost, lose };
}

/** The held lock: `release` gives it up the first time it is called, and does nothing after. */
export function heldLock(
  holder: LockHolder,
  lost: Promise<never>,
  release: () => Promise<void>,
  freshness?: LockFreshness,
): HeldLock {
  let released = false;
  return {
    holder,
    lost,
    ...(freshness && { confirmed: () => freshness.check() }),
    async release() {
      if (released) return;
      released = true;
      await release();
    },
  };
}

/**
 * Waits `ms` before the next try, in short steps: a run asked to stop (a signal) while it waits for
 * the lock ends at once, having done nothing.
 */
export async function waitOrStop(ms: number, scope: LockScope, options: AcquireOptions): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (options.stopped?.()) {
      throw new CatalogIoError(
        'API_STOPPED',
        `Stopped while waiting for the lock of ${scope.entity} (another import of it to this tenant is running): nothing was done`,
      );
    }
    const left = until - Date.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, STOP_CHECK_MS)));
  }
}

/** How often a wait for the lock looks whether the run was asked to stop. */
const STOP_CHECK_MS = 100;

/** A lock's holder in words, for a run refused or waiting: `run R (pid P on H, started T)`. */
export function holderWords(holder: LockHolder | undefined): string {
  return holder
    ? `run ${holder.runId} (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt})`
    : 'another run';
}

/**
 * The error of a run refused because another holds the lock (exit 75); `waitedMs`: how long it waited
 * (`--wait-lock`), when it did: advising that flag again would tell a run that already used it nothing.
 */
export function lockedError(scope: LockScope, holder: LockHolder | undefined, waitedMs = 0): CatalogIoError {
  const advice =
    waitedMs > 0
      ? `It was still running after ${Math.round(waitedMs / 1000)} s of --wait-lock: try again when it ends, or wait longer`
      : 'Try again when it ends, or wait for it with --wait-lock <seconds>';
  return new CatalogIoError(
    'LOCKED',
    `Another import of ${scope.entity} to this tenant is running: ${holderWords(holder)}. ${advice}`,
    { holder, scope },
  );
}

/**
 * How long after a refresh that confirmed it a lock is surely still held: two thirds of the time after
 * which another run may take it over (a stale lock file, an expired Redis key), the rest a margin for
 * the clocks, the store's own timing and the write about to start.
 */
export function guaranteedMs(staleMs: number): number {
  return Math.floor((staleMs * 2) / 3);
}

/**
 * When the lock was last confirmed held, for the check before each write: a clock comparison while
 * the last confirmation is recent enough; past that (the process stalled, was stopped, or its store is
 * slow), writes wait for the next refresh, or end if the lock is lost (or not confirmed within
 * `waitMs`, a lock that cannot be confirmed is lost as well).
 */
export class LockFreshness {
  private confirmedAt = Date.now();
  private lostWith: Error | undefined;
  private readonly waiters = new Set<{ resolve: () => void; reject: (err: Error) => void }>();

  constructor(
    private readonly windowMs: number,
    private readonly waitMs: number,
    /** The lock could not be confirmed in time: the store loses it (which calls `lose` here). */
    private readonly giveUp: (err: Error) => void,
    /** A write is waiting: the store may refresh at once rather than at its next beat. */
    private readonly refreshNow: () => void = () => {},
  ) {}

  /** A refresh that began at `startedAt` found the lock still ours. */
  confirm(startedAt: number): void {
    if (this.lostWith) return;
    if (startedAt > this.confirmedAt) this.confirmedAt = startedAt;
    if (!this.fresh()) return;
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** The lock is lost: every write waiting, and every write after, is not sent. */
  lose(err: Error): void {
    if (this.lostWith) return;
    this.lostWith = err;
    for (const waiter of this.waiters) waiter.reject(err);
    this.waiters.clear();
  }

  private fresh(): boolean {
    return Date.now() - this.confirmedAt < this.windowMs;
  }

  /** `undefined`: the lock is surely held, write; else wait for the promise (it rejects if the lock is lost). */
  check(): Promise<void> | undefined {
    if (this.lostWith) return Promise.reject(this.lostWith);
    if (this.fresh()) return undefined;
    return new Promise<void>((resolve, reject) => {
      // A timer that keeps the process alive while the write waits (the store's own may not).
      const timer = setTimeout(() => {
        this.giveUp(
          new CatalogIoError(
            'LOCK_LOST',
            `The run lock could not be confirmed within ${Math.round(this.waitMs / 1000)} s`,
          ),
        );
      }, this.waitMs);
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.waiters.add(waiter);
      this.refreshNow();
    });
  }
}
