// A command other than import connects with `connectTelling`: it says the embedded sandbox's line, and
// while a service cannot be reached, the same lines a person sees during an import's wait, so a validate,
// export or schema command that waits is not silent for minutes.
import type { OutageNotice } from '../api/circuit.js';
import { formatDuration } from '../api/deadline.js';
import type { ServiceName } from '../api/errors.js';
import { clockTime } from '../api/service-http.js';
import type { ConnectionFlags } from '../config/config.js';
import type { Connection } from '../config/index.js';
import type { Output } from './output.js';

/** `connect` for a command that waits without a progress bar of its own. */
export async function connectTelling(out: Output, flags: ConnectionFlags): Promise<Connection> {
  // Loaded on use, as the commands load it: --help and offline commands start faster.
  const { connect } = await import('../config/index.js');
  let budgetMs = 0;
  const connection = await connect({
    flags,
    announce: (line) => out.error(line),
    onOutage: (service: ServiceName, notice: OutageNotice) => {
      const since = clockTime(notice.since);
      if (notice.state === 'waiting')
        out.error(
          `waiting for the ${service} since ${since}: it cannot be reached (${notice.why}); waiting up to ${formatDuration(budgetMs)} (--outage-budget)`,
        );
      else if (notice.state === 'back')
        out.error(`the ${service} is back (unreachable since ${since}); going on`);
    },
  });
  budgetMs = connection.transport.outage.budgetMs;
  return connection;
}
