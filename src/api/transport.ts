// The HTTP core every client request goes through: one keep-alive undici Pool per origin, the run's
// limiter, the run's counters, the retry policy, a circuit per service and the run's stop.
// `ServiceHttp` (service-http.ts) binds it to one service (base URL and key) and turns every answer
// into a parsed body or an ApiError.
import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';
import { CatalogIoError } from '../errors.js';
import { Circuit, OUTAGE_DEFAULTS, type OutageNotice, type OutagePolicy } from './circuit.js';
import { type CountersSnapshot, RunCounters } from './counters.js';
import type { ServiceName } from './errors.js';
import { createLimiter, type RateLimit, type RequestLimiter } from './limiter.js';
import { type PaceNotice, PaceRecord } from './pace.js';
import { type RetryPolicy, retryPolicy } from './retry.js';

export const TIMEOUT_DEFAULTS = Object.freeze({
  /** One try, whole: connecting, the headers and the complete body, ms. */
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
});

export interface TransportOptions {
  /** Requests in flight at once, and connections per origin. Default 8. */
  concurrency?: number;
  /** Requests per window; `null` for none. Default 50 per 10 s (the real service's limit). */
  rateLimit?: RateLimit | null;
  /** Attempts, backoff, and `budgetMs`: the time one request may take, all tries and waits included. */
  retry?: Partial<RetryPolicy>;
  /** A limiter shared with other processes (`--redis`); replaces the run's own. */
  limiter?: RequestLimiter;
  /** One try, whole (headers and complete body), ms. Default 30 s. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** How long a service may be unreachable (requests wait for it) before they give up, and its probes. */
  outage?: Partial<OutagePolicy>;
  /** Told when a service becomes unreachable, is back, or was waited for past the outage budget. */
  onOutage?: (service: ServiceName, notice: OutageNotice) => void;
  /** Told when a 429 lowers the pace below the rate limit (each cut), and when it is back at the limit. */
  onPace?: (notice: PaceNotice) => void;
}

/** What one run shares: connections, limiter, counters, retry policy. Close it when the run ends. */
export class Transport {
  readonly limiter: RequestLimiter;
  readonly counters = new RunCounters();
  /** The pace the limiter kept, answer by answer: for the notices and the summary. */
  private readonly pace: PaceRecord;
  readonly policy: RetryPolicy;
  readonly concurrency: number;
  readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  readonly outage: OutagePolicy;
  private readonly onOutage: TransportOptions['onOutage'];
  private readonly pools = new Map<string, Pool>();
  private readonly circuits = new Map<ServiceName, Circuit>();
  /** Fires when the run stops: no request starts any more, and every wait ends at once. */
  private readonly waits = new AbortController();
  /** Fires when the tries in flight are cut (at once, or after the grace `interrupt` gave them). */
  private readonly tries = new AbortController();
  private graceTimer: NodeJS.Timeout | undefined;
  /** A service was waited for past the outage budget: the run stops, no other outage is waited for. */
  private givenUp = false;
  private closed = false;
  /** Asked before each try of a write (the run's lock still held for sure), when a run set one. */
  private writeGuard: (() => Promise<void> | undefined) | undefined;

  constructor(options: TransportOptions = {}) {
    checkTimes(options);
    this.concurrency = options.concurrency ?? 8;
    this.limiter =
      options.limiter ??
      createLimiter({
        concurrency: this.concurrency,
        ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
      });
    this.policy = retryPolicy(options.retry);
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_DEFAULTS.timeoutMs;
    this.connectTimeoutMs = options.connectTimeoutMs ?? TIMEOUT_DEFAULTS.connectTimeoutMs;
    this.outage = { ...OUTAGE_DEFAULTS, ...options.outage };
    this.onOutage = options.onOutage;
    this.pace = new PaceRecord(options.onPace);
    // Every request in flight or waiting listens to these two: as many as the run has, not ten.
    setMaxListeners(0, this.waits.signal, this.tries.signal);
  }

  /** The circuit of one service (created with its probe on first use). */
  circuit(service: ServiceName, probe: () => Promise<boolean>): Circuit {
    let circuit = this.circuits.get(service);
    if (!circuit) {
      circuit = new Circuit(this.outage, probe, (notice) => {
        // A service given up on stops the run: no other service's outage is waited for after it.
        if (notice.state === 'gone') {
          this.givenUp = true;
          for (const [other, c] of this.circuits) if (other !== service) c.release();
        }
        this.onOutage?.(service, notice);
      });
      if (this.givenUp) circuit.release();
      this.circuits.set(service, circuit);
    }
    return circuit;
  }

  /**
   * Sets (or, `undefined`, clears) what each try of a write (POST, PUT, PATCH, DELETE) asks first:
   * `undefined` to go ahead, or a promise to wait for; a promise that rejects means the write is not sent.
   */
  guardWrites(guard: (() => Promise<void> | undefined) | undefined): void {
    this.writeGuard = guard;
  }

  /** What a write must wait for before it is sent, if anything (see `guardWrites`). */
  beforeWrite(): Promise<void> | undefined {
    return this.writeGuard?.();
  }

  /** The run is stopping: requests not yet started are not sent. */
  get stopping(): boolean {
    return this.waits.signal.aborted;
  }

  get waitSignal(): AbortSignal {
    return this.waits.signal;
  }

  get trySignal(): AbortSignal {
    return this.tries.signal;
  }

  /**
   * Stops the run's requests (a signal): none starts any more, retry and outage waits end at once, and
   * the tries in flight are cut after `graceMs` (a service that answers finishes them; one that hangs
   * does not hold the run). Called again, the grace can only get shorter.
   */
  interrupt(graceMs = 0): void {
    if (!this.waits.signal.aborted) {
      this.waits.abort();
      for (const circuit of this.circuits.values()) circuit.stop();
    }
    if (this.tries.signal.aborted) return;
    if (graceMs <= 0) {
      if (this.graceTimer) clearTimeout(this.graceTimer);
      this.tries.abort();
      return;
    }
    if (this.graceTimer) return;
    this.graceTimer = setTimeout(() => this.tries.abort(), graceMs);
    this.graceTimer.unref();
  }

  pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.concurrency,
        // Each try's own deadline (deadline.ts) covers the whole try and decides; undici's waits are a
        // backstop a second later, so the same stall never ends by one limit one time and the other the next.
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
        connectTimeout: Math.min(this.connectTimeoutMs, this.timeoutMs),
        keepAliveTimeout: 10_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /**
   * An answer from `service` (not a gateway's): the limiter has heard it (`RequestLimiter.answered`),
   * and its pace, lowered or raised, is recorded.
   */
  paceAnswered(service: ServiceName): void {
    this.pace.observe(service, this.limiter.paceNow?.());
  }

  snapshot(): CountersSnapshot {
    const pace = this.pace.summary(this.limiter.paceNow?.());
    return { ...this.counters.snapshot(), ...(pace && { pace }) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    for (const circuit of this.circuits.values()) circuit.stop();
    // Nothing of the run waits for an answer now: a try still hanging (a poll given up on) is cut.
    this.tries.abort();
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
    this.pools.clear();
  }
}

/** Node runs a timer longer than about 24.8 days after 1 ms: such a limit would end every try at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** A library caller's time limits, checked like the CLI's flags are. */
function checkTimes(options: TransportOptions): void {
  const limits: Array<[string, number | undefined]> = [
    ['timeoutMs', options.timeoutMs],
    ['connectTimeoutMs', options.connectTimeoutMs],
    ['retry.budgetMs', options.retry?.budgetMs],
  ];
  for (const [name, value] of limits) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0 || value > LONGEST_TIMER_MS) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `${name} must be a number of milliseconds above 0 and at most ${LONGEST_TIMER_MS}, found ${value}`,
      );
    }
  }
}
