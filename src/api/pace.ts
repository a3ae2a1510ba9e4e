// The pace a run kept, for the people who read about it: the limiter lowers its pace on 429s and
// raises it back slowly (src/api/limiter.ts), and this follows it answer by answer: when it went below
// the rate limit and how low (each cut told, with the service whose 429 cut it), when it was back at the
// limit, and for the run's summary the lowest pace and how long the run ran below its limit.
import type { ServiceName } from './errors.js';

/** The limiter's pace now: requests it lets start per window, and the configured limit. */
export interface PaceNow {
  requests: number;
  limit: number;
  windowSeconds: number;
}

/** A change of the pace: lowered after a 429 (`from` the pace before, `to` the new one), or back at the limit. */
export type PaceNotice =
  | {
      state: 'lowered';
      service: ServiceName;
      from: number;
      to: number;
      limit: number;
      windowSeconds: number;
      at: Date;
    }
  | {
      state: 'back';
      limit: number;
      windowSeconds: number;
      /** When the pace went below the limit, and the lowest it reached since. */
      belowSince: Date;
      lowest: number;
      at: Date;
    };

/** What a run's summary says of its pace (`requests.pace`): present whenever the run had a rate limit. */
export interface PaceSummary {
  /** The rate limit: requests per window (`--rate-limit 50/10`: 50 and 10). */
  limitPerWindow: number;
  windowSeconds: number;
  /** The lowest pace the run's 429s brought it to, requests per window (the limit when never lowered). */
  lowestPerWindow: number;
  /** How many times a 429 lowered the pace. */
  timesLowered: number;
  /** How long the run went at a pace below its limit, ms (until its end when it never got back). */
  belowLimitMs: number;
}

export class PaceRecord {
  private last: PaceNow | undefined;
  private lowest = Number.POSITIVE_INFINITY;
  private lowered = 0;
  /** When the pace went below the limit (`Date.now()`), while it is. */
  private belowSince: number | undefined;
  /** The lowest since `belowSince`. */
  private lowestBelow = Number.POSITIVE_INFINITY;
  private belowMs = 0;

  constructor(private readonly notify?: (notice: PaceNotice) => void) {}

  /** The pace after an answer from `service` (undefined: the limiter has none, no rate limit). */
  observe(service: ServiceName, now: PaceNow | undefined): void {
    if (!now) return;
    const before = this.last?.requests ?? now.limit;
    this.last = now;
    this.lowest = Math.min(this.lowest, now.requests);
    const t = Date.now();
    if (now.requests < before) {
      this.lowered += 1;
      if (this.belowSince === undefined) {
        this.belowSince = t;
        this.lowestBelow = now.requests;
      } else this.lowestBelow = Math.min(this.lowestBelow, now.requests);
      this.notify?.({
        state: 'lowered',
        service,
        from: before,
        to: now.requests,
        limit: now.limit,
        windowSeconds: now.windowSeconds,
        at: new Date(t),
      });
    } else if (now.requests >= now.limit && this.belowSince !== undefined) {
      const since = this.belowSince;
      this.belowMs += t - since;
      this.belowSince = undefined;
      this.notify?.({
        state: 'back',
        limit: now.limit,
        windowSeconds: now.windowSeconds,
        belowSince: new Date(since),
        lowest: this.lowestBelow,
        at: new Date(t),
      });
    }
  }

  /** The run's pace so far; undefined before any answer of a run with a rate limit, or without one. */
  summary(limit?: PaceNow): PaceSummary | undefined {
    const known = this.last ?? limit;
    if (!known) return undefined;
    return {
      limitPerWindow: known.limit,
      windowSeconds: known.windowSeconds,
      lowestPerWindow: Math.min(this.lowest, known.limit),
      timesLowered: this.lowered,
      belowLimitMs: this.belowMs + (this.belowSince === undefined ? 0 : Date.now() - this.belowSince),
    };
  }
}
