// Fault and load knobs: latency with jitter, a per-key rate limit, random 5xx and connection resets,
// and the request counters read at /_sandbox/stats. Random draws come from one seedable generator
// so a faulty run can be repeated exactly.

/** mulberry32: small, fast, good enough for fault injection. */
export function randomSource(seed: number | undefined): () => number {
  if (seed === undefined) return Math.random;
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sliding-window limiter per API key: at most `requests` in any `windowSeconds`. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly requests: number,
    private readonly windowSeconds: number,
  ) {}

  /** Records a request; returns 0 when allowed, else the seconds to wait before retrying. */
  take(key: string, now = Date.now()): number {
    const windowMs = this.windowSeconds * 1000;
    let log = this.hits.get(key);
    if (!log) {
      log = [];
      this.hits.set(key, log);
    }
    while (log.length > 0 && log[0]! <= now - windowMs) log.shift();
    if (log.length >= this.requests) {
      const waitMs = log[0]! + windowMs - now;
      return Math.max(1, Math.ceil(waitMs / 1000));
    }
    log.push(now);
    return 0;
  }
}

export interface StatsSnapshot {
  total: number;
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
  /** `catalog` and `dam`: two services (their rate limits may differ; the spec does not show the DAM's). */
  byService: Record<string, number>;
}

/** Counts catalog and DAM requests (not asset-host or stats requests). */
export class RequestStats {
  private total = 0;
  private byMethod: Record<string, number> = {};
  private byStatus: Record<string, number> = {};
  private byService: Record<string, number> = {};

  /** `status` is the HTTP status answered, or 'reset' when the connection was destroyed. */
  record(method: string, status: number | 'reset', service: 'catalog' | 'dam'): void {
    this.total += 1;
    this.byMethod[method] = (this.byMethod[method] ?? 0) + 1;
    const key = String(status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    this.byService[service] = (this.byService[service] ?? 0) + 1;
  }

  snapshot(): StatsSnapshot {
    return {
      total: this.total,
      byMethod: { ...this.byMethod },
      byStatus: { ...this.byStatus },
      byService: { ...this.byService },
    };
  }

  reset(): void {
    this.total = 0;
    this.byMethod = {};
    this.byStatus = {};
    this.byService = {};
  }
}

/** Latency with +-25% jitter. */
export function jittered(ms: number, random: () => number): number {
  if (ms <= 0) return 0;
  return Math.max(0, Math.round(ms * (0.75 + random() * 0.5)));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
