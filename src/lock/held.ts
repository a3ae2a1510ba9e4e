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
export function heldLock(holder: LockHolder, lost: Promise<never>, release: () => Promise<void>): HeldLock {
  let released = false;
  return {
    holder,
    lost,
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

/** The error of a run refused because another holds the lock (exit 75). */
export function lockedError(scope: LockScope, holder: LockHolder | undefined): CatalogIoError {
  return new CatalogIoError(
    'LOCKED',
    `Another import of ${scope.entity} to this tenant is running: ${holderWords(holder)}. Try again when it ends, or wait for it with --wait-lock <seconds>`,
    { holder, scope },
  );
}
