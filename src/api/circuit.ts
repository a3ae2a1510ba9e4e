// One circuit per service: when the service cannot be reached (connections refused or reset, a try
// with no answer, 502/503/504 from its gateway) several times in a row, the circuit opens. Requests
// then wait instead of failing, while one probe at a time asks the service whether it is back, with a
// growing pause between probes. When a probe gets an answer the circuit closes and the waiting
// requests go on where they were. Past the outage budget (10 min by default) the waiting requests
// give up (`gone`): the caller stops the run as resumable (the DAM's as the catalog's). The other
// services' circuits are then released (`release`): a stopping run does not wait a second budget for
// another service. Probing goes on at the longest pause while gone, so a service that comes back is
// used again.

export interface OutagePolicy {
  /** How long a service may stay unreachable before the requests waiting for it give up, ms. */
  budgetMs: number;
  /**
   * Failures of the unreachable kind in a row (no answer in between) that open the circuit; a request
   * about to give up on such a failure opens it too. `Infinity`: no circuit, requests give up as the
   * retry policy says.
   */
  threshold: number;
  /** The first pause before a probe, ms; it doubles up to `probeMaxMs`. */
  probeBaseMs: number;
  probeMaxMs: number;
}

export const OUTAGE_DEFAULTS: Readonly<OutagePolicy> = Object.freeze({
  budgetMs: 600_000,
  threshold: 5,
  probeBaseMs: 1_000,
  probeMaxMs: 30_000,
});

/** What the circuit tells its owner: the service became unreachable, came back, or was given up on. */
export interface OutageNotice {
  state: 'waiting' | 'back' | 'gone';
  /** When the service was first found unreachable. */
  since: Date;
  /** The failure that opened the circuit, for people (`ECONNREFUSED`, `502`). */
  why: string;
}

/** Why a request waiting on the circuit did not go on. */
export class CircuitClosedOff extends Error {
  constructor(
    readonly reason: 'gone' | 'stopped',
    readonly since: Date | undefined,
    /** The failure that opened the circuit (`ECONNREFUSED`, `502`). */
    readonly why = '',
  ) {
    super(
      reason === 'gone' ? 'the service stayed unreachable past the outage budget' : 'the run is stopping',
    );
    this.name = 'CircuitClosedOff';
  }
}

/** One probe of the service: true when it answered at all (any answer but a gateway's 502/503/504). */
export type Probe = () => Promise<boolean>;

export class Circuit {
  private failuresInARow = 0;
  private openedAt: number | undefined;
  private why = '';
  private gone = false;
  private readonly waiters = new Set<{ resolve: () => void; reject: (err: Error) => void }>();
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Another service was given up on: the run is stopping, and this one's outage is not waited for. */
  private released = false;

  constructor(
    readonly policy: OutagePolicy,
    private readonly probe: Probe,
    private readonly notify: (notice: OutageNotice) => void = () => {},
  ) {}

  /** Whether requests are held (the service was found unreachable and has not answered since). */
  get open(): boolean {
    return this.openedAt !== undefined;
  }

  /**
   * Resolves at once while the service answers; while it is unreachable, when it is back. Rejects
   * (CircuitClosedOff) past the outage budget, or when the run stops.
   */
  ready(): Promise<void> {
    if (this.stopped) return Promise.reject(new CircuitClosedOff('stopped', this.since()));
    if (this.openedAt === undefined) return Promise.resolve();
    if (this.released) return Promise.reject(new CircuitClosedOff('stopped', this.since(), this.why));
    if (this.gone) return Promise.reject(new CircuitClosedOff('gone', this.since(), this.why));
    return new Promise<void>((resolve, reject) => {
      this.waiters.add({ resolve, reject });
    });
  }

  /** The service answered (whatever it said): the circuit closes, and the waiting requests go on. */
  answered(): void {
    this.failuresInARow = 0;
    if (this.openedAt === undefined) return;
    const since = new Date(this.openedAt);
    this.openedAt = undefined;
    this.gone = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Found unreachable only after the run stopped waiting: nothing was said, nothing is.
    if (!this.released) this.notify({ state: 'back', since, why: this.why });
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }

  /**
   * A try found the service unreachable; says whether the circuit is open now (the request should
   * wait). `outOfTime`: the request would give up on it otherwise, which is reason enough to open.
   */
  unreachable(why: string, outOfTime = false): boolean {
    if (this.stopped || this.policy.threshold === Number.POSITIVE_INFINITY) return false;
    if (this.released) {
      // The run is stopping: the request is not held, and the next try of any request gives up.
      this.openedAt ??= Date.now();
      this.why ||= why;
      return false;
    }
    this.failuresInARow += 1;
    if (this.openedAt === undefined && (outOfTime || this.failuresInARow >= this.policy.threshold)) {
      this.openedAt = Date.now();
      this.why = why;
      this.notify({ state: 'waiting', since: new Date(this.openedAt), why });
      this.schedule(this.policy.probeBaseMs);
    }
    return this.openedAt !== undefined;
  }

  /** The run stops: waiting requests give up at once, probing ends. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const err = new CircuitClosedOff('stopped', this.since());
    for (const w of this.waiters) w.reject(err);
    this.waiters.clear();
  }

  /**
   * Another service was waited for past the outage budget, so the run stops: this service's outage is
   * not waited for (no second budget). Requests while it answers go on (the run's last reads and
   * writes); a request that finds it unreachable, and those waiting for it, give up at once.
   */
  release(): void {
    if (this.released || this.stopped) return;
    this.released = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const err = new CircuitClosedOff('stopped', this.since(), this.why);
    for (const w of this.waiters) w.reject(err);
    this.waiters.clear();
  }

  private since(): Date | undefined {
    return this.openedAt === undefined ? undefined : new Date(this.openedAt);
  }

  private schedule(pauseMs: number): void {
    if (this.stopped || this.released || this.openedAt === undefined) return;
    // A little jitter, so several processes of a tenant do not probe together.
    const wait = Math.round(pauseMs * (0.8 + Math.random() * 0.4));
    this.timer = setTimeout(() => void this.probeOnce(pauseMs), wait);
    // Within the budget requests wait on it, so it keeps the process alive; once gone it must not.
    if (this.gone) this.timer.unref();
  }

  private async probeOnce(pauseMs: number): Promise<void> {
    this.timer = undefined;
    if (this.probing || this.stopped || this.openedAt === undefined) return;
    this.probing = true;
    let back = false;
    try {
      back = await this.probe();
    } catch {
      back = false;
    } finally {
      this.probing = false;
    }
    if (this.stopped || this.released || this.openedAt === undefined) return;
    if (back) {
      this.answered();
      return;
    }
    if (!this.gone && Date.now() - this.openedAt >= this.policy.budgetMs) {
      this.gone = true;
      this.notify({ state: 'gone', since: new Date(this.openedAt), why: this.why });
      const err = new CircuitClosedOff('gone', new Date(this.openedAt), this.why);
      for (const w of this.waiters) w.reject(err);
      this.waiters.clear();
    }
    const next = Math.min(this.policy.probeMaxMs, pauseMs * 2);
    // The last pause before the budget ends is cut so the budget is kept, not overrun by a pause.
    const left = this.gone ? next : Math.max(0, this.openedAt + this.policy.budgetMs - Date.now());
    this.schedule(Math.max(1, Math.min(next, left)));
  }
}
