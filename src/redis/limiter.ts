// The rate limit shared by every process working for one tenant, through Bottleneck's Redis
// clustering: all limiters with the same id (the tenant's hash) start their requests at least
// `minTime` apart, decided in Redis, so any number of processes on any number of machines together
// stay under the service's limit. In-flight requests stay a per-process matter (a local Bottleneck).
//
// Spacing rather than a reservoir: a reservoir refilled every window would let twice the limit
// through around each refill (the service counts a sliding window); evenly spaced starts never do,
// and reach the same rate once a run is under way. The margin is the single-process limiter's.
//
// Redis faults are not the requests' faults. After a flush or a restart the limiter's settings are
// gone (`SETTINGS_KEY_NOT_FOUND`, or turns asked before the flush that never come): the limiter is
// made again and the waiting requests ask their turn in it. While requests wait, a watchdog looks
// for the settings once a second, so that a flush (or Redis gone) is noticed even when no new
// request comes and a turn asked of a silent Redis never answers.
// While Redis cannot be reached a request waits and asks again; once Redis has been gone longer
// than `aloneAfterMs` (by then the run's lock is lost and the run stops after its batch in flight),
// the waiting requests start at this process's own pace, so that batch ends with every row reported.
//
// The spacing in Redis is the strictest of the live processes' limits. Bottleneck writes its settings
// only when it makes them (`clearDatastore: false` keeps them, with no expiry): a run started with a
// lower limit than the one that made them would be held to the higher one. So each limiter says its
// spacing in Redis under a lease (`catalog-io:limit:<tenant>:rates`, renewed every RATE_RENEW_MS),
// and the shared `minTime` is set (Bottleneck's updateSettings) to the longest spacing of the leases
// alive: a lower limit applies at once to every process of the tenant, a higher one once no process
// with a lower one is alive (it stopped, or its lease of RATE_LEASE_MS ran out).
//
// A limiter's own spacing follows its pace (AdaptivePace, src/api/limiter.ts): a 429 halves the pace,
// so the spacing it says doubles, at once (not at the next renewal), and being the strictest it holds
// every process of the tenant; accepted requests bring it back slowly, said at the next renewal.
// The tenant's limit is one quota, so one process's 429s rightly slow them all.
import { randomUUID } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import {
  AdaptivePace,
  LIMIT_DEFAULTS,
  type RateLimit,
  type RequestLimiter,
  RunLimiter,
  windowWithMargin,
} from '../api/limiter.js';
import type { PaceNow } from '../api/pace.js';
import { KEY_PREFIX } from './url.js';

export interface SharedLimiterOptions {
  /** A connected client; the limiter makes its own two connections from its settings. */
  redis: Redis;
  /** The tenant's hash (src/redis/tenant.ts). */
  tenant: string;
  concurrency?: number;
  rateLimit?: RateLimit;
  /** Redis unreachable this long: requests start at this process's own pace. Default 20 s. */
  aloneAfterMs?: number;
}

/** The least time between two request starts, ms, for a rate. */
export function spacingMs(rate: RateLimit): number {
  return Math.ceil(windowWithMargin(rate) / rate.requests);
}

/** A request's turn asked of Redis gets no answer for this long: Redis is taken as unreachable. */
const TURN_TIMEOUT_MS = 30_000;
/** Waits between two asks while Redis is unreachable: from the first to the last, doubling. */
const RETRY_MS = { first: 100, last: 1000 };

/** Redis lost the limiter's state (flushed, restarted): Bottleneck's own words, with or without `ERR`. */
const STATE_LOST = /SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT/;
/** How long stopping waits for Redis to hear of it. */
const STOP_WAIT_MS = 1000;
/** How often waiting requests check that the limiter's state is still in Redis. */
const WATCH_MS = 1000;

/** How long a limiter's spacing counts for the tenant's after it last said it. */
const RATE_LEASE_MS = 10_000;
/** How often a limiter says its spacing again and takes up the tenant's. */
const RATE_RENEW_MS = 2_000;

/**
 * KEYS: the leases' expiries (zset), their spacings (hash), Bottleneck's settings.
 * ARGV: this limiter's id, its spacing (or '' to withdraw it), the lease, ms.
 * Returns the longest spacing alive (0 when none) and the `minTime` in Redis ('' when unset).
 */
const RATE_SCRIPT = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
if ARGV[2] == '' then
  redis.call('zrem', KEYS[1], ARGV[1])
  redis.call('hdel', KEYS[2], ARGV[1])
else
  redis.call('zadd', KEYS[1], now + lease, ARGV[1])
  redis.call('hset', KEYS[2], ARGV[1], ARGV[2])
end
local gone = redis.call('zrangebyscore', KEYS[1], '-inf', now)
for _, id in ipairs(gone) do
  redis.call('zrem', KEYS[1], id)
  redis.call('hdel', KEYS[2], id)
end
local strictest = 0
for _, v in ipairs(redis.call('hvals', KEYS[2])) do
  if tonumber(v) > strictest then strictest = tonumber(v) end
end
redis.call('pexpire', KEYS[1], lease * 2)
redis.call('pexpire', KEYS[2], lease * 2)
return { strictest, redis.call('hget', KEYS[3], 'minTime') or '' }
`;

type Turn<T> =
  | { ran: true; value: T }
  | { ran: true; error: unknown }
  | { ran: false; error?: unknown; renewed?: boolean };

export class SharedLimiter implements RequestLimiter {
  private readonly local: Bottleneck;
  private shared: Bottleneck;
  private readonly retired: Bottleneck[] = [];
  private readonly connection: Bottleneck.IORedisConnection;
  private readonly alone: RunLimiter;
  private readonly aloneAfterMs: number;
  private readonly rate: RateLimit;
  /** This process's pace, lowered on 429s: its spacing is the one it says in Redis. */
  private readonly pace: AdaptivePace;
  private readonly id: string;
  /** When Redis stopped answering, while it does not. */
  private unreachableSince: number | undefined;
  private stopped = false;
  /** Asks waiting for their turn in the current shared limiter: given up when it is made again. */
  private readonly waiting = new Set<() => void>();
  private readonly probe: Redis;
  private watchdog: NodeJS.Timeout | undefined;
  /** This limiter's name among the tenant's leases. */
  private readonly instance = randomUUID();
  /** The tenant's spacing as last seen in Redis (the strictest alive); this limiter's own at first. */
  private applied: number;
  private rateTimer: NodeJS.Timeout | undefined;

  constructor(options: SharedLimiterOptions) {
    const rate = options.rateLimit ?? LIMIT_DEFAULTS.rateLimit;
    const concurrency = options.concurrency ?? LIMIT_DEFAULTS.concurrency;
    this.local = new Bottleneck({ maxConcurrent: concurrency });
    this.alone = new RunLimiter({ concurrency, rateLimit: rate });
    this.aloneAfterMs = options.aloneAfterMs ?? 20_000;
    this.rate = rate;
    // A window's hold between cuts: spaced starts resume at once after a cut (see AdaptivePace).
    this.pace = new AdaptivePace(rate.requests, windowWithMargin(rate));
    this.applied = this.spacing;
    this.id = `${KEY_PREFIX}:limit:${options.tenant}`;
    this.connection = new Bottleneck.IORedisConnection({
      client: options.redis.duplicate({ lazyConnect: false }),
      Redis,
    } as Bottleneck.IORedisConnectionOptions);
    this.connection.on('error', () => undefined);
    this.probe = options.redis;
    this.shared = this.sharedLimiter();
  }

  /** This limiter's spacing at its current pace, ms. */
  private get spacing(): number {
    return spacingMs({ requests: this.pace.requests, windowSeconds: this.rate.windowSeconds });
  }

  answered(limited: boolean, startedAt: number): void {
    // The pace alone (with Redis gone) follows the same answers.
    this.alone.answered(limited, startedAt);
    if (!limited) {
      this.pace.accepted();
      return;
    }
    // A cut is said at once: the other processes of the tenant spend the same quota.
    if (this.pace.limited(startedAt) && !this.stopped) this.syncRate().catch(() => undefined);
  }

  /** Requests per second this process may start: the tenant's strictest spacing, or its own if stricter. */
  requestRate(): number {
    return 1000 / Math.max(this.applied, this.spacing);
  }

  /**
   * This process's own pace (lowered by its own 429s). The tenant's spacing may be stricter, held by
   * another process's cut or lower limit: `requestRate` follows that one.
   */
  paceNow(): PaceNow {
    return {
      requests: this.pace.requests,
      limit: this.rate.requests,
      windowSeconds: this.rate.windowSeconds,
    };
  }

  /** Bottleneck's settings key of this limiter (its datastore's naming). */
  private get settingsKey(): string {
    return `b_${this.id}_settings`;
  }

  /** Makes the shared limiter again; the asks waiting in the old one ask again in the new one. */
  private renew(): void {
    this.retired.push(this.shared);
    this.shared = this.sharedLimiter();
    for (const giveUp of [...this.waiting]) giveUp();
  }

  /** While asks wait: once a second, is the limiter's state still in Redis? */
  private watch(): void {
    if (this.watchdog || this.stopped) return;
    this.watchdog = setInterval(async () => {
      if (this.waiting.size === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
        return;
      }
      try {
        const exists = await Promise.race([
          this.probe.exists(this.settingsKey),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('no answer')), WATCH_MS).unref(),
          ),
        ]);
        this.unreachableSince = undefined;
        if (exists === 0 && this.waiting.size > 0) this.renew();
      } catch {
        // Unreachable: past the bound, the waiting asks are given up and go at this process's pace.
        this.unreachableSince ??= Date.now();
        if (Date.now() - this.unreachableSince > this.aloneAfterMs)
          for (const giveUp of [...this.waiting]) giveUp();
      }
    }, WATCH_MS);
    this.watchdog.unref();
  }

  private sharedLimiter(): Bottleneck {
    const limiter = new Bottleneck({
      id: this.id,
      datastore: 'ioredis',
      connection: this.connection,
      minTime: this.applied,
      // Never wipe the shared state on joining: the spacing is set by syncRate, not by making it.
      clearDatastore: false,
    });
    limiter.on('error', () => undefined);
    return limiter;
  }

  /**
   * Resolves once the shared state is reachable and its spacing is the strictest of the tenant's live
   * limiters (this one's included): no request of this run starts at a looser pace than its own.
   */
  async ready(): Promise<void> {
    await this.shared.ready();
    await this.syncRate();
    if (this.rateTimer || this.stopped) return;
    this.rateTimer = setInterval(() => {
      // Redis faults here are the watchdog's and the requests' to notice: the lease is said again next time.
      this.syncRate().catch(() => undefined);
    }, RATE_RENEW_MS);
    this.rateTimer.unref();
  }

  /** Says this limiter's spacing (or withdraws it), and sets Redis's to the strictest alive. */
  private async syncRate(withdraw = false): Promise<void> {
    const [strictest, stored] = (await this.probe.eval(
      RATE_SCRIPT,
      3,
      `${this.id}:rates:until`,
      `${this.id}:rates`,
      this.settingsKey,
      this.instance,
      withdraw ? '' : String(this.spacing),
      String(RATE_LEASE_MS),
    )) as [number, string];
    if (strictest === 0) return;
    this.applied = strictest;
    if (stored !== '' && Number(stored) !== strictest)
      await this.shared.updateSettings({ minTime: strictest });
  }

  schedule<T>(fn: () => Promise<T>): Promise<T> {
    return this.local.schedule(() => this.turn(fn));
  }

  /** Runs `fn` in its turn, decided in Redis while Redis answers. */
  private async turn<T>(fn: () => Promise<T>): Promise<T> {
    let wait = RETRY_MS.first;
    for (;;) {
      if (this.unreachableSince !== undefined && Date.now() - this.unreachableSince > this.aloneAfterMs)
        return this.alone.schedule(fn);
      const turn = await this.askRedis(fn);
      if (turn.ran) {
        this.unreachableSince = undefined;
        if ('value' in turn) return turn.value;
        throw turn.error;
      }
      if (this.stopped) throw new Error('the run is stopping');
      if (turn.renewed) continue;
      if (turn.error instanceof Error && STATE_LOST.test(turn.error.message)) {
        // Flushed or restarted: the limiter's settings are made again, the request asks again.
        this.renew();
        continue;
      }
      this.unreachableSince ??= Date.now();
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, RETRY_MS.last);
    }
  }

  /**
   * One ask for a turn: `ran` when `fn` ran (its value or its own error); else Redis failed or did not
   * answer in time, and `fn` will never run from this ask.
   */
  private askRedis<T>(fn: () => Promise<T>): Promise<Turn<T>> {
    let state: 'waiting' | 'started' | 'abandoned' = 'waiting';
    return new Promise<Turn<T>>((resolve) => {
      const giveUp = (turn: Turn<T>) => {
        if (state !== 'waiting') return;
        state = 'abandoned';
        clearTimeout(timer);
        this.waiting.delete(renewed);
        resolve(turn);
      };
      const renewed = () => giveUp({ ran: false, renewed: true });
      const timer = setTimeout(() => giveUp({ ran: false }), TURN_TIMEOUT_MS);
      timer.unref();
      this.waiting.add(renewed);
      this.watch();
      this.shared
        .schedule(() => {
          // A turn given after its ask was given up: taken, and passed on at once.
          if (state === 'abandoned') return Promise.resolve(undefined);
          state = 'started';
          clearTimeout(timer);
          this.waiting.delete(renewed);
          return fn();
        })
        .then(
          (value) => {
            if (state === 'started') resolve({ ran: true, value: value as T });
          },
          (error: unknown) => {
            if (state === 'started') resolve({ ran: true, error });
            else giveUp({ ran: false, error });
          },
        );
    });
  }

  async stop(options: { dropWaitingJobs: boolean }): Promise<void> {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearInterval(this.rateTimer);
    // Stopping tells Redis; with Redis gone, the end of the run is not held up waiting for it.
    const bounded = (work: Promise<unknown>) =>
      Promise.race([
        work.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref()),
      ]);
    await bounded(this.local.stop(options));
    // This limit no longer holds the others back (when it was the strictest, theirs applies again).
    await bounded(this.syncRate(true));
    for (const limiter of [this.shared, ...this.retired]) await bounded(limiter.stop(options));
    await this.alone.stop(options).catch(() => undefined);
    await bounded(this.connection.disconnect(false));
  }
}
