// The run lock on this machine: a lock file per tenant and entity in the machine's lock folder
// (dir.ts: the user's state folder, not the working folder), taken
// with proper-lockfile (an atomic mkdir, kept fresh while the run lives). The file beside it says who
// holds it. A lock whose process is gone is taken over at once (same host) or once it went stale.
import fs from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { processAlive } from '../runs/registry.js';
import { guaranteedMs, heldLock, LockFreshness, lockedError, lossSignal, waitOrStop } from './held.js';
import type { AcquireOptions, HeldLock, LockHolder, LockScope, RunLockStore } from './types.js';

/** A lock not refreshed for this long belongs to a process that is gone (another host, or frozen). */
const STALE_MS = 30_000;
const POLL_MS = 500;

export class FileLockStore implements RunLockStore {
  readonly dir: string;
  private readonly staleMs: number;

  /**
   * `dir`: the lock folder (`defaultLockDir()` unless configured). `staleMs`: how long a lock not
   * refreshed stays its holder's (default 30 s; at least 2 s; shorter only in tests). It is refreshed
   * every half of it.
   */
  constructor(dir: string, options: { staleMs?: number } = {}) {
    this.dir = dir;
    this.staleMs = Math.max(options.staleMs ?? STALE_MS, 2000);
  }

  private file(scope: LockScope): string {
    const safe = `${scope.tenant}-${scope.entity}`.replace(/[^A-Za-z0-9._-]/g, '_');
    return path.join(this.dir, `${safe}.json`);
  }

  async holder(scope: LockScope): Promise<LockHolder | undefined> {
    const file = this.file(scope);
    if (!(await lockfile.check(file, { stale: this.staleMs, realpath: false }).catch(() => false)))
      return undefined;
    return readHolder(file);
  }

  async acquire(scope: LockScope, holder: LockHolder, options: AcquireOptions = {}): Promise<HeldLock> {
    await mkdir(this.dir, { recursive: true });
    const file = this.file(scope);
    const deadline = Date.now() + (options.waitMs ?? 0);
    let waiting = false;
    const { lost, lose } = lossSignal();
    for (;;) {
      // Writes go out while the lock file's last refresh (its mtime found ours, then renewed) is recent
      // enough that no other run can have found it stale; past that they wait for the next refresh.
      const freshness = new LockFreshness(guaranteedMs(this.staleMs), this.staleMs, (err) => loseIt(err));
      const loseIt = (err: Error) => {
        freshness.lose(err);
        lose(err);
      };
      try {
        const release = await lockfile.lock(file, {
          stale: this.staleMs,
          realpath: false,
          fs: refreshWatched(`${file}.lock`, freshness),
          onCompromised: (err) => loseIt(err),
        });
        // A holder file left behind means its run never released the lock: it was taken over.
        const previous = await readHolder(file);
        if (previous) options.onTakeover?.(previous);
        await writeFile(file, `${JSON.stringify(holder)}\n`);
        return heldLock(
          holder,
          lost,
          async () => {
            await rm(file, { force: true });
            await release().catch(() => {});
          },
          freshness,
        );
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      }
      const current = await readHolder(file);
      if (current && current.host === hostname() && !processAlive(current.pid)) {
        // Its process is gone: the lock directory is all that is left of it.
        await rm(`${file}.lock`, { recursive: true, force: true });
        continue;
      }
      if (Date.now() >= deadline) throw lockedError(scope, current, options.waitMs);
      if (!waiting) options.onWait?.(current);
      waiting = true;
      await waitOrStop(POLL_MS, scope, options);
    }
  }
}

/**
 * The file system proper-lockfile works with, telling `freshness` of each refresh of the lock folder
 * that succeeded: its mtime was found ours (the stat), then renewed (utimes). The lock was held when
 * the stat began, and nobody can find it stale before that time plus the stale threshold.
 */
function refreshWatched(lockDir: string, freshness: LockFreshness): typeof fs {
  let statAt: number | undefined;
  return {
    ...fs,
    stat: ((target: fs.PathLike, callback: (err: NodeJS.ErrnoException | null, stats: fs.Stats) => void) => {
      if (target === lockDir) statAt = Date.now();
      fs.stat(target, callback);
    }) as typeof fs.stat,
    utimes: ((
      target: fs.PathLike,
      atime: fs.TimeLike,
      mtime: fs.TimeLike,
      callback: (err: NodeJS.ErrnoException | null) => void,
    ) => {
      const began = statAt;
      fs.utimes(target, atime, mtime, (err) => {
        if (!err && target === lockDir && began !== undefined) freshness.confirm(began);
        callback(err);
      });
    }) as typeof fs.utimes,
  };
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trim() ? (JSON.parse(text) as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}
