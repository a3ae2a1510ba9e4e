// What `--redis` gives a run: the tenant's name in shared places, the rate limit every process of
// the tenant shares, and the run lock store on the same server.
import type { Redis } from 'ioredis';
import type { RateLimit } from '../api/limiter.js';
import { CatalogIoError } from '../errors.js';
import { lockLostAfterMs, REDIS_LOCK_DEFAULTS, RedisLockStore } from '../lock/redis.js';
import type { RunLockStore } from '../lock/types.js';
import { connectRedis } from './connection.js';
import { SharedLimiter } from './limiter.js';
import { redactRedisUrl } from './url.js';

export interface SharedState {
  redis: Redis;
  /** The tenant's hash: Redis keys, lock scopes. */
  tenant: string;
  /** Undefined when the run has no rate limit (`--rate-limit off`, the embedded sandbox). */
  limiter: SharedLimiter | undefined;
  locks: RunLockStore;
  close(): Promise<void>;
}

export interface SharedStateOptions {
  url: string;
  /** The tenant's hash (src/runs/source-identity.ts): the same name its runs and locks use. */
  tenant: string;
  concurrency?: number;
  rateLimit: RateLimit | null;
  env?: NodeJS.ProcessEnv;
}

/** Seconds a dead holder's lock outlives it: `CATALOG_IO_LOCK_TTL` (default 30). */
export function lockTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.CATALOG_IO_LOCK_TTL;
  if (text === undefined || text.trim() === '') return REDIS_LOCK_DEFAULTS.ttlMs;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 1) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `CATALOG_IO_LOCK_TTL must be at least 1 second, found ${text}`,
    );
  }
  return seconds * 1000;
}

export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  const ttlMs = lockTtlMs(options.env);
  const redis = await connectRedis(options.url);
  const tenant = options.tenant;
  const limiter = options.rateLimit
    ? new SharedLimiter({
        redis,
        tenant,
        rateLimit: options.rateLimit,
        // By then the run's lock is lost and the run stops after its batch in flight (lock/redis.ts).
        aloneAfterMs: lockLostAfterMs(ttlMs),
        ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
      })
    : undefined;
  if (limiter) {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () =>
          reject(
            new CatalogIoError('REDIS_UNREACHABLE', `Redis at ${redactRedisUrl(options.url)} did not answer`),
          ),
        10_000,
      ).unref(),
    );
    try {
      await Promise.race([limiter.ready(), timeout]);
    } catch (err) {
      await limiter.stop({ dropWaitingJobs: true });
      redis.disconnect();
      throw err;
    }
  }
  return {
    redis,
    tenant,
    limiter,
    locks: new RedisLockStore(redis, { ttlMs }),
    async close() {
      await limiter?.stop({ dropWaitingJobs: true });
      redis.disconnect();
    },
  };
}
