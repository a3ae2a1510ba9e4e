// What every lock store hands back once it holds a lock: the `lost` promise its store rejects, and a
// release that runs once however often it is called.
import type { HeldLock, LockHolder } from './types.js';

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
