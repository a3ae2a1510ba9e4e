// Request counters for one run: what the reports and benchmarks print. Requests are the scarce
// resource (the service allows 50 per 10 s), so every attempt is counted, retries included.
import type { PaceSummary } from './pace.js';

export interface CountersSnapshot {
  /** Every attempt sent, retries included. */
  requests: number;
  byMethod: Record<string, number>;
  /** By HTTP status, or `network` when no answer came. */
  byStatus: Record<string, number>;
  /** Attempts that were retries of an earlier failed attempt. */
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
  /** Writes that failed with an unknown outcome (not retried, marked ambiguous). */
  ambiguous: number;
  /** Response body bytes received. */
  bytesIn: number;
  /** Request body bytes sent. */
  bytesOut: number;
  /** Time spent waiting before retries, ms. */
  retryWaitMs: number;
  /** The pace the run kept under its rate limit (lowered after 429s); absent without a rate limit. */
  pace?: PaceSummary;
}

export class RunCounters {
  private requests = 0;
  private readonly byMethod: Record<string, number> = {};
  private readonly byStatus: Record<string, number> = {};
  private retries = 0;
  private rateLimited = 0;
  private ambiguous = 0;
  private bytesIn = 0;
  private bytesOut = 0;
  private retryWaitMs = 0;

  /** One attempt and its outcome: an HTTP status, or `network` when the transport failed. */
  recordAttempt(
    method: string,
    status: number | 'network',
    bytes: { in: number; out: number },
    retry: boolean,
  ): void {
    this.requests += 1;
    this.byMethod[method] = (this.byMethod[method] ?? 0) + 1;
    const key = String(status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    if (status === 429) this.rateLimited += 1;
    if (retry) this.retries += 1;
    this.bytesIn += bytes.in;
    this.bytesOut += bytes.out;
  }

  recordRetryWait(ms: number): void {
    this.retryWaitMs += ms;
  }

  recordAmbiguous(): void {
    this.ambiguous += 1;
  }

  snapshot(): CountersSnapshot {
    return {
      requests: this.requests,
      byMethod: { ...this.byMethod },
      byStatus: { ...this.byStatus },
      retries: this.retries,
      rateLimited: this.rateLimited,
      ambiguous: this.ambiguous,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      retryWaitMs: this.retryWaitMs,
    };
  }
}

/** What `counters` counted since now: a run of its own among others on one connection (a copy's steps). */
export function countedFromNow(counters: () => CountersSnapshot): () => CountersSnapshot {
  const base = counters();
  const minus = (a: Record<string, number>, b: Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const [k, n] of Object.entries(a)) if (n - (b[k] ?? 0) > 0) out[k] = n - (b[k] ?? 0);
    return out;
  };
  return () => {
    const now = counters();
    return {
      requests: now.requests - base.requests,
      byMethod: minus(now.byMethod, base.byMethod),
      byStatus: minus(now.byStatus, base.byStatus),
      retries: now.retries - base.retries,
      rateLimited: now.rateLimited - base.rateLimited,
      ambiguous: now.ambiguous - base.ambiguous,
      bytesIn: now.bytesIn - base.bytesIn,
      bytesOut: now.bytesOut - base.bytesOut,
      retryWaitMs: now.retryWaitMs - base.retryWaitMs,
      // The connection's pace so far: its lowest is not a difference.
      ...(now.pace && { pace: now.pace }),
    };
  };
}
