// The run lock on this machine: a lock file per tenant and entity in the machine's lock folder
// (dir.ts: the user's state folder, not the working folder), taken
// with proper-lockfile (an atomic mkdir, kept fresh while the run lives). The file beside it says who
// holds it. A lock whose process is gone is taken over at once (same host) or once it went stale.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { processAlive } from '../runs/registry.js';
import { heldLock, lockedError, lossSignal, waitOrStop } from './held.js';
import type { AcquireOptions, HeldLock, LockHolder, LockScope, RunLockStore } from './types.js';

/** A lock not refreshed for this long belongs to a process that is gone (another host, or frozen). */
const STALE_MS = 30_000;
const POLL_MS = 500;

export class FileLockStore implements RunLockStore {
  readonly dir: string;

  /** `dir`: the lock folder (`defaultLockDir()` unless configured). */
  constructor(dir: string) {
    this.dir = dir;
  }

  private file(scope: LockScope): string {
    const safe = `${scope.tenant}-${scope.entity}`.replace(/[^A-Za-z0-9._-]/g, '_');
    return path.join(this.dir, `${safe}.json`);
  }

  async holder(scope: LockScope): Promise<LockHolder | undefined> {
    const file = this.file(scope);
    if (!(await lockfile.check(file, { stale: STALE_MS, realpath: false }).catch(() => false)))
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
      try {
        const release = await lockfile.lock(file, {
          stale: STALE_MS,
          realpath: false,
          onCompromised: (err) => lose(err),
        });
        // A holder file left behind means its run never released the lock: it was taken over.
        const previous = await readHolder(file);
        if (previous) options.onTakeover?.(previous);
        await writeFile(file, `${JSON.stringify(holder)}\n`);
        return heldLock(holder, lost, async () => {
          await rm(file, { force: true });
          await release().catch(() => {});
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      }
      const current = await readHolder(file);
      if (current && current.host === hostname() && !processAlive(current.pid)) {
        // Its process is gone: the lock directory is all that is left of it.
        await rm(`${file}.lock`, { recursive: true, force: true });
        continue;
      }
      if (Date.now() >= deadline) throw lockedError(scope, current);
      if (!waiting) options.onWait?.(current);
      waiting = true;
      await waitOrStop(POLL_MS, scope, options);
    }
  }
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trim() ? (JSON.parse(text) as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}
