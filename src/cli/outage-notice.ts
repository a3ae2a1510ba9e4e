// What a person reads while a service cannot be reached (`outageLine`), and when the service's 429s
// lowered the run's pace below its rate limit and when it is back (`PaceLines`). Every command that talks
// to the services connects with `connectTelling`: it says the embedded sandbox's line and, while a service
// cannot be reached, the same lines and progress-line waits whatever the command, so a validate, export,
// schema or copy command that waits is not silent for minutes, and an import says what its run will do.
import type { OutageNotice } from '../api/circuit.js';
import { formatDuration } from '../api/deadline.js';
import type { ServiceName } from '../api/errors.js';
import type { PaceNotice, PaceSummary } from '../api/pace.js';
import { clockTime } from '../api/service-http.js';
import type { ConnectionFlags } from '../config/config.js';
import type { Connection, ConnectOptions } from '../config/index.js';
import type { Output } from './output.js';
import type { Wait } from './progress.js';

/** How a connection made by `connectTelling` tells what it meets. */
export interface Telling {
  /** Told the services waited for whenever that changes, for the command's progress line (`Progress.waiting`). */
  waiting?: (waits: readonly Wait[]) => void;
  /** A copy's side (`source`, `target`): its lines start with it, and its waits name it. */
  side?: string;
  /** What happens once the outage budget runs out, as the waiting line says it (default `then it stops`). */
  pastBudget?: string;
  /** The line past the budget too (a copy); else the command's own error says why it stops. */
  sayGone?: boolean;
  /** More for `connect` (a copy's side reads no environment and names its own flags). */
  connect?: Omit<ConnectOptions, 'flags' | 'announce' | 'onPace' | 'onOutage'>;
}

/** `connect` with the command's outage and pace lines, and its waits for the progress line. */
export async function connectTelling(
  out: Output,
  flags: ConnectionFlags,
  telling: Telling = {},
): Promise<Connection> {
  // Loaded on use, as the commands load it: --help and offline commands start faster.
  const { connect } = await import('../config/index.js');
  const say = telling.side
    ? (line: string) => out.error(`${telling.side}: ${line}`)
    : (line: string) => out.error(line);
  // The outage budget is the connection's, known once it is made (a notice comes only after a request).
  let budgetMs = 0;
  const waits = new OutageWaits(telling.side);
  const pace = new PaceLines(say);
  const connection = await connect({
    ...telling.connect,
    flags,
    announce: (line) => out.error(line),
    onPace: (notice) => pace.note(notice),
    onOutage: (service: ServiceName, notice: OutageNotice) => {
      telling.waiting?.(waits.note(service, notice, budgetMs));
      if (notice.state !== 'gone' || telling.sayGone)
        say(outageLine(service, notice, budgetMs, telling.pastBudget ?? 'then it stops'));
    },
  });
  budgetMs = connection.transport.outage.budgetMs;
  return connection;
}

/**
 * The services a command waits for now (the Catalog API and the DAM API each have their outage), as
 * the progress line says them: since when, and until the outage budget runs out.
 */
export class OutageWaits {
  private readonly waits = new Map<ServiceName, Wait>();

  /** `whose`: the side a copy's connection is (`the target's Catalog API`); none for one tenant. */
  constructor(private readonly whose?: string) {}

  /** Takes a notice; returns the waits now. */
  note(service: ServiceName, notice: OutageNotice, budgetMs: number): Wait[] {
    if (notice.state === 'waiting') {
      this.waits.set(service, {
        what: this.whose ? `the ${this.whose}'s ${service}` : `the ${service}`,
        since: notice.since,
        ...(budgetMs > 0 && { until: new Date(notice.since.getTime() + budgetMs) }),
      });
    } else this.waits.delete(service);
    return [...this.waits.values()];
  }
}

/** What a person reads when a service cannot be reached, comes back, or is given up on. */
export function outageLine(
  service: ServiceName,
  notice: OutageNotice,
  budgetMs: number,
  /** What happens past the budget, for a run (import) or any other command. */
  past = 'then the run stops and --resume finishes it',
): string {
  const since = clockTime(notice.since);
  switch (notice.state) {
    case 'waiting':
      return `waiting for the ${service} since ${since}: it cannot be reached (${notice.why}); waiting up to ${formatDuration(budgetMs)} (--outage-budget), ${past}`;
    case 'back':
      return `the ${service} is back (unreachable from ${since} for ${formatDuration(Date.now() - notice.since.getTime())}); going on`;
    case 'gone':
      return `the ${service} could not be reached since ${since}, longer than ${formatDuration(budgetMs)}: stopping`;
  }
}

/** Between two lines that say the pace was lowered, at least this long (a minute). */
export const PACE_LINE_GAP_MS = 60_000;

/**
 * Says on stderr when 429s lowered the run's pace below its rate limit, and when it is back at the limit,
 * without a line per 429: a pace that swings below the limit says it was lowered once (and again only
 * when it goes lower than it said, a minute or more after its last line), and says it is back only after
 * it said it was lowered. At most one line per change of direction, and none of the lowered ones within
 * a minute of the line before.
 */
export class PaceLines {
  /** The pace the last line said it was lowered to, until a line says it is back. */
  private told: number | undefined;
  private lastLineAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly say: (line: string) => void,
    private readonly gapMs = PACE_LINE_GAP_MS,
  ) {}

  note(notice: PaceNotice): void {
    const now = notice.at.getTime();
    if (notice.state === 'lowered') {
      if (now - this.lastLineAt < this.gapMs) return;
      if (this.told !== undefined && notice.to >= this.told) return;
      this.say(paceLine(notice, this.told !== undefined));
      this.told = notice.to;
    } else {
      if (this.told === undefined) return;
      this.say(paceLine(notice));
      this.told = undefined;
    }
    this.lastLineAt = now;
  }
}

/** What a person reads when 429s lower the pace, and when it is back at the rate limit. */
export function paceLine(notice: PaceNotice, again = false): string {
  const per = `requests per ${notice.windowSeconds} s`;
  if (notice.state === 'lowered') {
    return `pace lowered${again ? ' again' : ''} from ${notice.from} to ${notice.to} ${per}, below the rate limit of ${notice.limit}: the ${notice.service} answered 429 (too many requests) at ${clockTime(notice.at)}; it climbs back while requests are accepted`;
  }
  return `pace back at the rate limit, ${notice.limit} ${per} (below it since ${clockTime(notice.belowSince)} for ${formatDuration(notice.at.getTime() - notice.belowSince.getTime())}, ${notice.lowest} at the lowest)`;
}

/**
 * A summary's words for a pace 429s lowered (`lowered 4 times by 429s, to 6 requests per 10 s at the
 * lowest (rate limit 50); 83.2 s below the rate limit`); none when it was never lowered.
 */
export function paceSummaryWords(pace: PaceSummary | undefined): string | undefined {
  if (!pace || pace.timesLowered === 0) return undefined;
  return `lowered ${pace.timesLowered} ${pace.timesLowered === 1 ? 'time' : 'times'} by 429s, to ${pace.lowestPerWindow} requests per ${pace.windowSeconds} s at the lowest (rate limit ${pace.limitPerWindow}); ${formatDuration(pace.belowLimitMs)} below the rate limit`;
}
