// One run per tenant and entity at a time. The import takes the lock before its first write; the
// store behind it is a lock file on this machine or, with --redis, a key shared by every machine.

/** Who holds a lock: shown to the run that is refused. */
export interface LockHolder {
  runId: string;
  pid: number;
  host: string;
  /** ISO date-time the holder took the lock. */
  startedAt: string;
}

/** What a lock is for: a tenant (a hash of its base URL and key id, never the key) and an entity. */
export interface LockScope {
  tenant: string;
  entity: string;
}

export interface HeldLock {
  readonly holder: LockHolder;
  /** Gives the lock up; safe to call twice. */
  release(): Promise<void>;
  /** Rejects once the lock was lost (its store no longer says we hold it). */
  readonly lost: Promise<never>;
  /**
   * Before each write: `undefined` while the last confirmed refresh is recent enough that no other run
   * can have taken the lock over (a clock comparison, no I/O); else a promise that resolves once a
   * refresh confirms the lock is still held, and rejects (`LOCK_LOST`) if it is lost instead. A store
   * without it is trusted until its `lost` rejects.
   */
  confirmed?(): Promise<void> | undefined;
}

export interface AcquireOptions {
  /** Wait up to this long for the holder to finish instead of failing at once. Default 0. */
  waitMs?: number;
  /** Told when a lock whose process is gone (or whose TTL ran out) was taken over. */
  onTakeover?: (previous: LockHolder) => void;
  /** The run was asked to stop (a signal): the wait ends at once with `API_STOPPED`. */
  stopped?: () => boolean;
  /** Told once, when the lock is held by another run and the wait for it begins (`waitMs` > 0). */
  onWait?: (holder: LockHolder | undefined) => void;
}

export interface RunLockStore {
  /**
   * Takes the lock for `scope`, or throws a CatalogIoError with code `LOCKED` (exit 75) naming the
   * holder (run id, pid, host, started).
   */
  acquire(scope: LockScope, holder: LockHolder, options?: AcquireOptions): Promise<HeldLock>;
  /** Who holds the lock now, if anyone. */
  holder(scope: LockScope): Promise<LockHolder | undefined>;
}
