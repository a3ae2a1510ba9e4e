// The run lock shared by every machine (`--redis`): one Redis key per tenant and entity, set only if
// absent, with a time to live that the holder renews while it is alive. A machine that dies stops
// renewing; its lock expires after the TTL and the next run takes it (and is told whose it was).
//
// Redis may lose the key under a live holder (FLUSHALL, a restart without persistence). The holder
// learns it at its next renewal (every third of the TTL, and at once when its connection comes back)
// and stops its run (`LOCK_LOST`), keeping the key taken again until it ended. So that no newcomer
// gets in before the holder noticed, a marker key says Redis still has its locks: a run that finds it
// gone waits half a TTL before taking any lock, time for every live holder to claim its key back.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CatalogIoError } from '../errors.js';
import { KEY_PREFIX } from '../redis/url.js';
import { heldLock, LockFreshness, lockedError, lossSignal, waitOrStop } from './held.js';
import type { AcquireOptions, HeldLock, LockHolder, LockScope, RunLockStore } from './types.js';

/**
 * How long a holder may go without renewing before it counts its lock as lost (two thirds of the TTL):
 * the key may expire any moment after, so the run and the shared limit stop before it does.
 */
export function lockLostAfterMs(ttlMs: number): number {
  return Math.floor((ttlMs * 2) / 3);
}

export const REDIS_LOCK_DEFAULTS = Object.freeze({
  /** A holder that stops renewing loses the lock after this long. */
  ttlMs: 30_000,
  /** How often a waiting run asks again. */
  pollMs: 500,
});

/** How long a run's end waits for Redis to take its lock back. */
const RELEASE_WAIT_MS = 2000;

/** Present while Redis keeps what lock holders wrote; gone after a flush or a restart that lost it. */
const MARKER = `${KEY_PREFIX}:locks-kept`;

/**
 * Renews only a lock that is still ours, and sets the marker (KEYS[2]) that says Redis keeps its locks:
 * one request a renewal.
 */
const RENEW = `redis.call('set', KEYS[2], '1')
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
/** Deletes the lock and its "last holder" note only when they are ours. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) end
if redis.call('get', KEYS[2]) == ARGV[1] then redis.call('del', KEYS[2]) end
return 1`;

interface Stored extends LockHolder {
  token: string;
}

export class RedisLockStore implements RunLockStore {
  private readonly ttlMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: Redis,
    options: { ttlMs?: number; pollMs?: number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? REDIS_LOCK_DEFAULTS.ttlMs;
    this.pollMs = options.pollMs ?? REDIS_LOCK_DEFAULTS.pollMs;
  }

  private key(scope: LockScope): string {
    return `${KEY_PREFIX}:lock:${scope.tenant}:${scope.entity}`;
  }

  /** Who took the lock last; outlives the lock, so a run that finds it after an expiry knows it took over. */
  private lastKey(scope: LockScope): string {
    return `${KEY_PREFIX}:lock-last:${scope.tenant}:${scope.entity}`;
  }

  async holder(scope: LockScope): Promise<LockHolder | undefined> {
    return withoutToken(parse(await this.redis.get(this.key(scope))));
  }

  async acquire(scope: LockScope, holder: LockHolder, options: AcquireOptions = {}): Promise<HeldLock> {
    const key = this.key(scope);
    const lastKey = this.lastKey(scope);
    const value = JSON.stringify({ ...holder, token: randomUUID() } satisfies Stored);
    // Redis lost its locks (or never had any): live holders may not have claimed theirs back yet.
    if ((await this.redis.set(MARKER, '1', 'NX')) === 'OK') {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(this.ttlMs / 2)));
    }
    const deadline = Date.now() + (options.waitMs ?? 0);
    let waiting = false;
    for (;;) {
      if ((await this.redis.set(key, value, 'PX', this.ttlMs, 'NX')) === 'OK') break;
      if (Date.now() >= deadline) throw lockedError(scope, await this.holder(scope), options.waitMs);
      if (!waiting && options.onWait) options.onWait(await this.holder(scope));
      waiting = true;
      await waitOrStop(this.pollMs, scope, options);
    }
    const previous = await this.redis.getset(lastKey, value);
    // The note lives a day beyond the lock: long enough to tell a takeover, not forever.
    await this.redis.pexpire(lastKey, this.ttlMs + 86_400_000);
    const before = withoutToken(parse(previous));
    if (before) options.onTakeover?.(before);
    return this.held(key, lastKey, value, holder);
  }

  private held(key: string, lastKey: string, value: string, holder: LockHolder): HeldLock {
    const redis = this.redis;
    const ttlMs = this.ttlMs;
    const { lost, lose } = lossSignal();
    let renewedAt = Date.now();
    let isLost = false;
    let released = false;
    let busy = false;
    // Past this without a renewal the key may expire any moment: the run must stop before it does.
    const unreachableMs = lockLostAfterMs(ttlMs);
    // A write waits for a renewal once the last is that old (a stalled or stopped process): asked at once.
    const freshness = new LockFreshness(
      unreachableMs,
      ttlMs,
      (err) => loseWith(err),
      () => void check(),
    );
    const loseWith = (err: Error) => {
      if (isLost) return;
      isLost = true;
      freshness.lose(err);
      lose(err);
    };
    const loseIt = (message: string) => loseWith(new CatalogIoError('LOCK_LOST', message));
    const check = async () => {
      if (released || busy) return;
      busy = true;
      // The key lives at least a TTL from when the renewal was sent: writes go out while that is recent.
      const sentAt = Date.now();
      try {
        const kept = await redis.eval(RENEW, 2, key, MARKER, value, String(ttlMs));
        if (kept === 1) {
          renewedAt = Date.now();
          freshness.confirm(sentAt);
          return;
        }
        // Gone (flushed, restarted) or someone else's: the run stops. A key that is free is claimed
        // again, so no other run gets in while this one finishes its batch in flight.
        const claimed = (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
        if (claimed) renewedAt = Date.now();
        loseIt(
          claimed
            ? 'Redis lost the run lock (flushed or restarted): the run stops, so that no other run writes the same records'
            : 'The run lock expired and was taken by another run',
        );
      } catch {
        if (Date.now() - renewedAt > unreachableMs) {
          loseIt(
            `Redis unreachable for ${Math.round((Date.now() - renewedAt) / 1000)} s: the run lock could not be renewed`,
          );
        }
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(check, Math.max(100, Math.floor(ttlMs / 3)));
    timer.unref();
    // A connection that comes back may find a restarted Redis: check at once.
    const onReady = () => void check();
    redis.on('ready', onReady);
    return heldLock(
      holder,
      lost,
      async () => {
        released = true;
        clearInterval(timer);
        redis.off('ready', onReady);
        // Redis gone: the key expires by its TTL; the run's end is not held up waiting for it.
        await Promise.race([
          redis.eval(RELEASE, 2, key, lastKey, value).catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, RELEASE_WAIT_MS).unref()),
        ]);
      },
      freshness,
    );
  }
}

function parse(text: string | null): Stored | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Stored;
  } catch {
    return undefined;
  }
}

function withoutToken(stored: Stored | undefined): LockHolder | undefined {
  if (!stored) return undefined;
  const { token: _token, ...holder } = stored;
  return holder;
}
