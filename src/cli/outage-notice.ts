// What a person reads while a service cannot be reached (`outageLine`, an import's too). A command other
// than import connects with `connectTelling`: it says the embedded sandbox's line, and
// while a service cannot be reached, the same lines a person sees during an import's wait, so a validate,
// export or schema command that waits is not silent for minutes.
import type { OutageNotice } from '../api/circuit.js';
import { formatDuration } from '../api/deadline.js';
import type { ServiceName } from '../api/errors.js';
import { clockTime } from '../api/service-http.js';
import type { ConnectionFlags } from '../config/config.js';
import type { Connection } from '../config/index.js';
import type { Output } from './output.js';
import type { Wait } from './progress.js';

/**
 * `connect` for a command other than import. `waiting`: told the services waited for whenever that
 * changes, for the command's progress line (`Progress.waiting`).
 */
export async function connectTelling(
  out: Output,
  flags: ConnectionFlags,
  waiting?: (waits: readonly Wait[]) => void,
): Promise<Connection> {
  // Loaded on use, as the commands load it: --help and offline commands start faster.
  const { connect } = await import('../config/index.js');
  let budgetMs = 0;
  const waits = new OutageWaits();
  const connection = await connect({
    flags,
    announce: (line) => out.error(line),
    onOutage: (service: ServiceName, notice: OutageNotice) => {
      waiting?.(waits.note(service, notice, budgetMs));
      // Past the budget the command's own error says why it stops.
      if (notice.state !== 'gone') out.error(outageLine(service, notice, budgetMs, 'then it stops'));
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

  /** Takes a notice; returns the waits now. */
  note(service: ServiceName, notice: OutageNotice, budgetMs: number): Wait[] {
    if (notice.state === 'waiting') {
      this.waits.set(service, {
        what: `the ${service}`,
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
