// Which run a queued job ran: the worker gives each job's process the job's key (`<id>@<ms added>`,
// unique even when Redis lost its data and ids start over), which the run keeps in its run.json
// (RunMeta.job). A job that BullMQ hands out again after its run finished (its end could not be
// recorded in Redis: Redis was down longer than --stalled-after, so the job counted as stalled) is
// completed with that run's end instead of being imported again: no second run overwriting the
// report, no second notification.

import type { RunSummary } from '../runner/summary-types.js';
import type { RunMeta } from '../runs/registry.js';
import { RunRegistry } from '../runs/registry.js';

/** The key of a job: its id and when it was added. */
export function jobKey(id: string | undefined, addedAt: number): string {
  return `${id}@${addedAt}`;
}

/** Exit codes of runs that ended for good: the job completes (0 ok, 1 rows failed, 3 stopped). */
const COMPLETED_EXITS: readonly number[] = [0, 1, 3];

export type JobRunNow =
  /** Its last run ended for good (exit 0, 1 or 3): the job is done. */
  | { kind: 'ended'; meta: RunMeta; summary: RunSummary }
  /** Its last run is still running (this worker's or another's, which lost the job's lock). */
  | { kind: 'running'; meta: RunMeta };

/**
 * Where the job's last run is; undefined when the job has no run, or its last run crashed or was
 * interrupted (the job's next run resumes it).
 */
export async function jobRunNow(stateDir: string, key: string): Promise<JobRunNow | undefined> {
  const registry = new RunRegistry(stateDir);
  // Newest first: a run resumed keeps its folder; a fresh run after an abandoned one is newer.
  const last = (await registry.list()).find((run) => run.job === key);
  return last ? runNow(registry, last) : undefined;
}

/**
 * Where a run found by jobRunNow is now: read alone (`get`), not by listing every run, for a worker
 * that waits for that run's end (a resume keeps its folder, so the job's last run stays this one).
 */
export async function jobRunNowById(stateDir: string, runId: string): Promise<JobRunNow | undefined> {
  const registry = new RunRegistry(stateDir);
  const run = await registry.get(runId);
  return run ? runNow(registry, run) : undefined;
}

async function runNow(registry: RunRegistry, run: RunMeta): Promise<JobRunNow | undefined> {
  if (run.state === 'crashed') return undefined;
  if (run.state === 'running') return { kind: 'running', meta: run };
  const summary = await registry.summary(run.runId);
  if (!summary || summary.runId !== run.runId || !COMPLETED_EXITS.includes(summary.exitCode))
    return undefined;
  return { kind: 'ended', meta: run, summary };
}
