// The run lock shared by every machine (`--redis`): one Redis key per tenant and entity, set only if
// absent, with a time to live that the holder renews while it is alive. A machine that dies stops
// renewing; its lock expires after the TTL and the next run takes it (and is told whose it was).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CatalogIoError } from '../errors.js';
import { KEY_PREFIX } from '../redis/url.js';
import { heldLock, lossSignal } from './held.js';
import type { AcquireOptions, HeldLock, LockHolder, LockScope, RunLockStore } from './types.js';

export const REDIS_LOCK_DEFAULTS = Object.freeze({
  /** A holder that stops renewing loses the lock after this long. */
  ttlMs: 30_000,
  /** How often a waiting run asks again. */
  pollMs: 500,
});

/** Renews only a lock that is still ours. */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
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
    const deadline = Date.now() + (options.waitMs ?? 0);
    for (;;) {
      if ((await this.redis.set(key, value, 'PX', this.ttlMs, 'NX')) === 'OK') break;
      if (Date.now() >= deadline) throw lockedError(scope, await this.holder(scope));
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
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
    const { lost, lose: loseIt } = lossSignal();
    let renewedAt = Date.now();
    let done = false;
    const timer = setInterval(
      async () => {
        try {
          const kept = await redis.eval(RENEW, 1, key, value, String(ttlMs));
          if (kept === 1) renewedAt = Date.now();
          else stop(new CatalogIoError('LOCKED', 'The run lock expired and was taken by another run'));
        } catch {
          // Redis unreachable for a moment: the lock holds until its TTL runs out.
          if (Date.now() - renewedAt > ttlMs) {
            stop(
              new CatalogIoError('REDIS_UNREACHABLE', 'The run lock could not be renewed: Redis unreachable'),
            );
          }
        }
      },
      Math.max(100, Math.floor(ttlMs / 3)),
    );
    timer.unref();
    const stop = (err?: Error) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      if (err) loseIt(err);
    };
    return heldLock(holder, lost, async () => {
      stop();
      await redis.eval(RELEASE, 2, key, lastKey, value).catch(() => undefined);
    });
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

function lockedError(scope: LockScope, holder: LockHolder | undefined): CatalogIoError {
  const who = holder
    ? `run ${holder.runId} (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt})`
    : 'another run';
  return new CatalogIoError(
    'LOCKED',
    `Another import of ${scope.entity} to this tenant is running: ${who}. Try again when it ends, or wait for it with --wait-lock <seconds>`,
    { holder, scope },
  );
}
