// The rate limit shared by every process working for one tenant, through Bottleneck's Redis
// clustering: all limiters with the same id (the tenant's hash) start their requests at least
// `minTime` apart, decided in Redis, so any number of processes on any number of machines together
// stay under the service's limit. In-flight requests stay a per-process matter (a local Bottleneck).
//
// Spacing rather than a reservoir: a reservoir refilled every window would let twice the limit
// through around each refill (the service counts a sliding window); evenly spaced starts never do,
// and reach the same rate once a run is under way. The margin is the single-process limiter's.
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { LIMIT_DEFAULTS, type RateLimit, type RequestLimiter, windowWithMargin } from '../api/limiter.js';
import { KEY_PREFIX } from './url.js';

export interface SharedLimiterOptions {
  /** A connected client; the limiter makes its own two connections from its settings. */
  redis: Redis;
  /** The tenant's hash (src/redis/tenant.ts). */
  tenant: string;
  concurrency?: number;
  rateLimit?: RateLimit;
}

/** The least time between two request starts, ms, for a rate. */
export function spacingMs(rate: RateLimit): number {
  return Math.ceil(windowWithMargin(rate) / rate.requests);
}

export class SharedLimiter implements RequestLimiter {
  private readonly local: Bottleneck;
  private readonly shared: Bottleneck;
  private readonly connection: Bottleneck.IORedisConnection;

  constructor(options: SharedLimiterOptions) {
    const rate = options.rateLimit ?? LIMIT_DEFAULTS.rateLimit;
    this.local = new Bottleneck({ maxConcurrent: options.concurrency ?? LIMIT_DEFAULTS.concurrency });
    this.connection = new Bottleneck.IORedisConnection({
      client: options.redis.duplicate({ lazyConnect: false }),
      Redis,
    } as Bottleneck.IORedisConnectionOptions);
    this.connection.on('error', () => undefined);
    this.shared = new Bottleneck({
      id: `${KEY_PREFIX}:limit:${options.tenant}`,
      datastore: 'ioredis',
      connection: this.connection,
      minTime: spacingMs(rate),
      // Another process's settings are the same: never wipe the shared state on joining.
      clearDatastore: false,
    });
    this.shared.on('error', () => undefined);
  }

  /** Resolves once the shared state is reachable. */
  ready(): Promise<unknown> {
    return this.shared.ready();
  }

  schedule<T>(fn: () => Promise<T>): Promise<T> {
    return this.local.schedule(() => this.shared.schedule(fn));
  }

  async stop(options: { dropWaitingJobs: boolean }): Promise<void> {
    await this.local.stop(options).catch(() => undefined);
    await this.shared.stop(options).catch(() => undefined);
    await this.connection.disconnect(false).catch(() => undefined);
  }
}
