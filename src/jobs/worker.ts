// A feed worker: takes jobs from the queue and runs each as the CLI would (`import <source> <flags>`),
// in a process of its own (job-process.ts), with this machine's settings for the job's tenant,
// `--redis` (so the tenant's limit and lock are shared with every other worker) and `--json` (the
// summary kept with the job).
//
// Stopping (`drain`): no new job is taken, the running ones finish; those still running after the
// drain timeout are interrupted (SIGTERM: they end `interrupted`, resumable) and retried later.
//
// A worker that dies mid-job stops renewing the job's lock in Redis; after `stalledAfterMs` another
// worker takes the job again, with `--resume`: it waits for the dead run's tenant lock to expire,
// then continues that run from its journal (rows it finished are not sent again), or, when the
// journal shows no unfinished run, starts afresh and finds what was written by reference. Either
// way nothing is created twice.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { KEY_PREFIX } from '../redis/url.js';
import type { FeedJob, FeedJobResult } from './feed-job.js';
import { notifyJobFailure } from './job-notify.js';
import {
  type CliCommand,
  FINAL_ERRORS,
  JOB_ATTEMPT_ENV,
  JOB_ENV,
  JobProcesses,
  RETRIED_EXITS,
} from './job-process.js';
import { jobKey, jobRunNow, jobRunNowById } from './job-runs.js';
import { QUEUE_NAME } from './queue.js';

export interface FeedWorkerOptions {
  connection: Redis;
  redisUrl: string;
  /** Jobs run at once by this worker. */
  concurrency: number;
  /** Folder of `<tenant>.json` config files (catalog URL, DAM URL, key). */
  tenantsDir: string;
  /** How to start the CLI for a job: this program again, unless told. */
  cli?: CliCommand;
  /** A job whose worker stopped answering this long is given to another worker. Default 30 s. */
  stalledAfterMs?: number;
  /** Seconds a job's run waits for another run's lock (a dead worker's expires by its TTL). */
  waitLockSeconds?: number;
  /** One line per job start and end, for the worker's log. */
  log?: (line: string) => void;
  /** The jobs' `.catalog-io` folder (their run folders): the worker's working folder's, as the jobs'. */
  stateDir?: string;
}

export const WORKER_DEFAULTS = Object.freeze({
  stalledAfterMs: 30_000,
  waitLockSeconds: 600,
  /** How long a stopping worker lets its running jobs finish before it interrupts them. */
  drainTimeoutMs: 600_000,
});

export interface FeedWorker {
  waitUntilReady(): Promise<unknown>;
  /** Jobs running now. */
  readonly running: number;
  /**
   * Takes no new job and resolves once the running ones ended: finished, or interrupted after
   * `timeoutMs` (or at once by `hurry()`), each then failed to be retried, resuming.
   */
  drain(timeoutMs?: number): Promise<{ interrupted: number }>;
  /** A stopping worker told to hurry: interrupts its running jobs now. */
  hurry(): void;
}

export function startFeedWorker(options: FeedWorkerOptions): FeedWorker {
  const stalledAfterMs = options.stalledAfterMs ?? WORKER_DEFAULTS.stalledAfterMs;
  const log = options.log ?? (() => undefined);
  const processes = new JobProcesses(options.cli);
  const worker = new Worker<FeedJob, FeedJobResult>(
    QUEUE_NAME,
    (job) => runJob(job, options, processes, log),
    {
      connection: options.connection,
      prefix: KEY_PREFIX,
      concurrency: options.concurrency,
      lockDuration: stalledAfterMs,
      stalledInterval: stalledAfterMs,
      // A job whose worker died twice is not given a third worker: something about it kills them.
      maxStalledCount: 2,
    },
  );
  worker.on('error', (err) => log(`worker: ${err.message}`));
  let interrupted = 0;
  const hurry = () => {
    interrupted += processes.interruptAll();
  };
  return {
    waitUntilReady: () => worker.waitUntilReady(),
    get running() {
      return processes.size;
    },
    async drain(timeoutMs = WORKER_DEFAULTS.drainTimeoutMs) {
      // close() stops taking jobs at once and resolves when the active ones have ended.
      const closed = worker.close();
      const timer = setTimeout(hurry, timeoutMs);
      try {
        await closed;
      } finally {
        clearTimeout(timer);
      }
      return { interrupted };
    },
    hurry,
  };
}

async function runJob(
  job: Job<FeedJob, FeedJobResult>,
  options: FeedWorkerOptions,
  processes: JobProcesses,
  log: (line: string) => void,
): Promise<FeedJobResult> {
  const { tenant, source, args } = job.data;
  const config = resolve(options.tenantsDir, `${tenant}.json`);
  if (!existsSync(config)) {
    const reason = `No settings for tenant ${tenant} on this worker: ${config} not found`;
    // The import never runs, so it cannot tell the job's --notify targets: the worker does.
    await notifyJobFailure(job.id, job.data, reason, log);
    throw new UnrecoverableError(reason);
  }
  const argv = [
    job.data.command,
    source,
    ...args,
    '--config',
    config,
    '--redis',
    options.redisUrl,
    '--wait-lock',
    String(options.waitLockSeconds ?? WORKER_DEFAULTS.waitLockSeconds),
    '--json',
    '--quiet',
  ];
  // Run again after a dead worker or a failed run: continue the unfinished run of this source, when
  // its run folder shows one (shared storage; docs/scale.md), else a fresh run that finds what the
  // earlier one wrote by reference.
  const again = job.attemptsStarted > 1 || job.stalledCounter > 0;
  const key = jobKey(job.id, job.timestamp);
  if (again) {
    // Handed out again although its run ended for good, or still runs: its end never reached Redis
    // (Redis was down longer than --stalled-after when the run ended), or Redis lost the job's lock
    // while it ran. Completed with that run's end once it has one: importing again would overwrite
    // its report with `unchanged` rows and notify a second time.
    const stateDir = options.stateDir ?? resolve('.catalog-io');
    const waitUntil = Date.now() + (options.waitLockSeconds ?? WORKER_DEFAULTS.waitLockSeconds) * 1000;
    let now = await jobRunNow(stateDir, key);
    if (now?.kind === 'running') {
      const { meta } = now;
      log(
        `job ${job.id}: its run ${meta.runId} (pid ${meta.pid} on ${meta.host}) still runs: waiting for its end rather than importing again`,
      );
      while (now?.kind === 'running' && Date.now() < waitUntil) {
        await new Promise((r) => setTimeout(r, RUN_POLL_MS));
        now = await jobRunNowById(stateDir, meta.runId);
      }
    }
    if (now?.kind === 'ended') {
      const { summary } = now;
      const line = `run ${summary.runId} of this job ended (exit ${summary.exitCode}, ${summary.finishedAt}) before its end could be recorded in Redis: the job is completed with it, not imported again`;
      log(`job ${job.id}: ${line}`);
      return { exitCode: summary.exitCode, summary: { ...summary }, log: [line] };
    }
  }
  const attempt = job.attemptsMade + 1;
  const attempts = job.opts.attempts ?? 1;
  const env = { [JOB_ENV]: key, [JOB_ATTEMPT_ENV]: `${attempt}/${attempts}` };
  const start = (pid: number | undefined) =>
    log(
      `job ${job.id}: ${job.data.command} ${source} for ${tenant} (run ${job.attemptsStarted}${again ? ', resuming' : ''}; pid ${pid})`,
    );
  let run = await processes.run(again ? [...argv, '--resume'] : argv, start, env);
  if (again && run.code === 2 && run.stderr.some((l) => l.includes('--resume: no unfinished run'))) {
    run = await processes.run(argv, start, env);
  }
  const { stdout, stderr } = run;
  if (run.code === null) {
    // Killed (kill -9, out of memory) or never started: its journal lets the next run resume it.
    const reason = run.signal
      ? `the job's process (pid ${run.pid}) was killed by ${run.signal}`
      : (stderr.at(-1) ?? "the job's process could not start");
    log(`job ${job.id}: ${reason}`);
    // Its run told no one: on the job's last run, the worker does (earlier runs are retried, resuming).
    if (attempt >= attempts) await notifyJobFailure(job.id, job.data, reason, log);
    throw new Error(reason);
  }
  const code = run.code;
  const summary = parseSummary(stdout);
  const result: FeedJobResult = { exitCode: code, ...(summary && { summary }), log: stderr.slice(-20) };
  log(`job ${job.id}: exit ${code}`);
  if (RETRIED_EXITS.includes(code)) {
    // Fatal, locked out or interrupted: the last line says why. Bad flags or settings fail at once;
    // anything else (service or source unreachable, the lock held, the worker stopping) is tried
    // again later, resuming.
    const reason = [...stderr].reverse().find((l) => l.startsWith('catalog-io:')) ?? `exit ${code}`;
    const errorCode = /\[([A-Z_]+)\]$/.exec(reason)?.[1];
    if (errorCode && FINAL_ERRORS.includes(errorCode)) {
      throw new UnrecoverableError(reason);
    }
    throw new Error(reason);
  }
  return result;
}

/** How often a job handed out again looks whether its run still running has ended. */
const RUN_POLL_MS = 500;

function parseSummary(stdout: string[]): Record<string, unknown> | undefined {
  const last = stdout.at(-1);
  if (!last) return undefined;
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
