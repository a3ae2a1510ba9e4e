// The feed queue in Redis (BullMQ): adding jobs, nightly schedules, and listing what is waiting,
// running, done and failed. Workers are in worker.ts.
import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { KEY_PREFIX } from '../redis/url.js';
import { checkFeedJob, type FeedJob, type FeedJobResult } from './feed-job.js';

export const QUEUE_NAME = 'feeds';

export const JOB_DEFAULTS = Object.freeze({
  /** Runs of a job in all: a run that fails for good (exit 2) is tried again later. */
  attempts: 3,
  /** The first retry waits this long, the next twice as long. */
  retryDelayMs: 60_000,
  /** Finished jobs kept for `catalog-io jobs`. */
  keepDone: 500,
  keepFailed: 1000,
});

export function openQueue(connection: Redis): Queue<FeedJob, FeedJobResult> {
  return new Queue<FeedJob, FeedJobResult>(QUEUE_NAME, { connection, prefix: KEY_PREFIX });
}

export interface EnqueueOptions {
  attempts?: number;
  retryDelayMs?: number;
}

function jobOptions(options: EnqueueOptions) {
  return {
    attempts: options.attempts ?? JOB_DEFAULTS.attempts,
    backoff: { type: 'exponential' as const, delay: options.retryDelayMs ?? JOB_DEFAULTS.retryDelayMs },
    removeOnComplete: { count: JOB_DEFAULTS.keepDone },
    removeOnFail: { count: JOB_DEFAULTS.keepFailed },
  };
}

export async function enqueueFeed(
  queue: Queue<FeedJob, FeedJobResult>,
  job: FeedJob,
  options: EnqueueOptions = {},
): Promise<Job<FeedJob, FeedJobResult>> {
  checkFeedJob(job);
  return queue.add(`${job.command} ${job.tenant}`, job, jobOptions(options));
}

export interface ScheduleOptions extends EnqueueOptions {
  cron: string;
  /** IANA time zone of the cron pattern; default the worker machine's. */
  tz?: string;
}

/** Creates or replaces the schedule `name`: a job made from `job` at every time of `cron`. */
export async function scheduleFeed(
  queue: Queue<FeedJob, FeedJobResult>,
  name: string,
  job: FeedJob,
  options: ScheduleOptions,
): Promise<{ next?: number }> {
  checkFeedJob(job);
  const first = await queue.upsertJobScheduler(
    name,
    { pattern: options.cron, ...(options.tz && { tz: options.tz }) },
    { name: `${job.command} ${job.tenant}`, data: job, opts: jobOptions(options) },
  );
  const next = first?.timestamp !== undefined ? first.timestamp + (first.opts.delay ?? 0) : undefined;
  return next !== undefined ? { next } : {};
}

export interface ScheduleInfo {
  name: string;
  cron?: string;
  tz?: string;
  next?: number;
  job?: FeedJob;
}

export async function listSchedules(queue: Queue<FeedJob, FeedJobResult>): Promise<ScheduleInfo[]> {
  const schedulers = await queue.getJobSchedulers(0, -1, true);
  return schedulers.map((s) => ({
    name: s.key,
    ...(s.pattern && { cron: s.pattern }),
    ...(s.tz && { tz: s.tz }),
    ...(s.next !== undefined && { next: s.next }),
    ...(s.template?.data && { job: s.template.data }),
  }));
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';
export const JOB_STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'completed', 'failed'];

export interface JobInfo {
  id: string;
  state: JobState;
  tenant: string;
  source: string;
  args: string[];
  /**
   * Runs of the job so far: every start counts, a retry after a failed run and a resume after a
   * worker or a job's process died alike.
   */
  runs: number;
  /** Runs that ended, failed or not (BullMQ's attempts made); a run whose process died is not one. */
  attempts: number;
  addedAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** Completed jobs: the run's exit code and summary. */
  result?: FeedJobResult;
  /** Failed jobs (and the last failed run of a job still retried): why. */
  failedReason?: string;
  /** The schedule that made it. */
  schedule?: string;
}

/** The jobs in each state, newest first, at most `limit` per state. */
export async function listJobs(queue: Queue<FeedJob, FeedJobResult>, limit = 50): Promise<JobInfo[]> {
  const infos: JobInfo[] = [];
  for (const state of JOB_STATES) {
    const jobs = await queue.getJobs([state], 0, limit - 1, false);
    for (const job of jobs) {
      if (!job?.id) continue;
      const iso = (t: number | undefined) => (t ? new Date(t).toISOString() : undefined);
      const startedAt = iso(job.processedOn);
      const finishedAt = iso(job.finishedOn);
      infos.push({
        id: job.id,
        state,
        tenant: job.data.tenant,
        source: job.data.source,
        args: job.data.args,
        runs: job.attemptsStarted,
        attempts: job.attemptsMade,
        addedAt: iso(job.timestamp) ?? '',
        ...(startedAt && { startedAt }),
        ...(finishedAt && { finishedAt }),
        ...(job.returnvalue && { result: job.returnvalue }),
        ...(job.failedReason && { failedReason: job.failedReason }),
        ...(job.repeatJobKey && { schedule: job.repeatJobKey }),
      });
    }
  }
  return infos;
}
