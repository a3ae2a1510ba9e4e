// One Bottleneck limiter per run, shared by the catalog and DAM clients: at most `concurrency`
// requests in flight and at most `requests` started per `windowSeconds` (a reservoir refilled each
// window). The defaults match the real service: 50 requests per 10 seconds per key.
// Every attempt takes a slot, retries included: the service counts them too.
import Bottleneck from 'bottleneck';

export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

export const LIMIT_DEFAULTS = Object.freeze({
  concurrency: 8,
  rateLimit: Object.freeze({ requests: 50, windowSeconds: 10 }) as Readonly<RateLimit>,
});

export interface LimiterOptions {
  concurrency?: number;
  /** `null` turns the rate limit off (a local sandbox without one). */
  rateLimit?: RateLimit | null;
}

export type RunLimiter = Bottleneck;

export function createLimiter(options: LimiterOptions = {}): RunLimiter {
  const concurrency = options.concurrency ?? LIMIT_DEFAULTS.concurrency;
  const rate = options.rateLimit === undefined ? LIMIT_DEFAULTS.rateLimit : options.rateLimit;
  return new Bottleneck({
    maxConcurrent: concurrency,
    ...(rate
      ? {
          reservoir: rate.requests,
          reservoirRefreshAmount: rate.requests,
          reservoirRefreshInterval: rate.windowSeconds * 1000,
        }
      : {}),
  });
}
