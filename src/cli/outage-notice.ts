// What a command other than import says while a service cannot be reached: the same lines a person sees
// during an import's wait, so a validate, export or schema command that waits is not silent for minutes.
import type { OutageNotice } from '../api/circuit.js';
import { formatDuration } from '../api/deadline.js';
import type { ServiceName } from '../api/errors.js';
import { clockTime } from '../api/service-http.js';
import type { Output } from './output.js';

/** The `onOutage` of `connect` for a command that waits without a progress bar of its own. */
export function outageNotes(out: Output, budgetMs: () => number) {
  return (service: ServiceName, notice: OutageNotice): void => {
    const since = clockTime(notice.since);
    if (notice.state === 'waiting')
      out.error(
        `waiting for the ${service} since ${since}: it cannot be reached (${notice.why}); waiting up to ${formatDuration(budgetMs())} (--outage-budget)`,
      );
    else if (notice.state === 'back')
      out.error(`the ${service} is back (unreachable since ${since}); going on`);
  };
}
