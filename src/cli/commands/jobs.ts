// Feed jobs on Redis (docs/scale.md):
//   catalog-io worker --redis URL [--concurrency N] [--tenants DIR]
//   catalog-io enqueue import <source> [import flags] --tenant NAME
//   catalog-io schedule add <name> --cron "0 2 * * *" import <source> [import flags] --tenant NAME
//   catalog-io schedule list | schedule remove <name>
//   catalog-io jobs [--json]
import type { Argv } from 'yargs';
import { numberFlag } from '../../config/flags.js';
import { parseSecondsFlag } from '../../config/numbers.js';
import { CatalogIoError, isCatalogIoError } from '../../errors.js';
import type { FeedJob } from '../../jobs/feed-job.js';
import { checkRedisUrl, redactRedisUrl } from '../../redis/url.js';
import type { Output } from '../output.js';
import type { CommandFactory } from './index.js';

const redisOption = {
  redis: { type: 'string', describe: 'Redis URL of the queue (env CATALOG_IO_REDIS)' },
} as const;

function redisUrlFrom(args: Record<string, unknown>): string {
  const url = typeof args.redis === 'string' && args.redis ? args.redis : process.env.CATALOG_IO_REDIS;
  if (!url)
    throw new CatalogIoError(
      'CONFIG_MISSING',
      'No Redis for the queue: give --redis URL or set CATALOG_IO_REDIS',
    );
  return checkRedisUrl(url, typeof args.redis === 'string' ? '--redis' : 'CATALOG_IO_REDIS');
}

/** The queue, open for the length of `use`. */
async function withQueue<T>(
  args: Record<string, unknown>,
  use: (queue: import('bullmq').Queue<FeedJob, import('../../jobs/feed-job.js').FeedJobResult>) => Promise<T>,
): Promise<T> {
  const { connectRedis } = await import('../../redis/connection.js');
  const { openQueue } = await import('../../jobs/queue.js');
  const redis = await connectRedis(redisUrlFrom(args), { forQueue: true });
  const queue = openQueue(redis);
  try {
    return await use(queue);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/** The flags a job carries after `import <source>`, and the job's own. */
function withJobOptions<T>(y: Argv<T>) {
  return y
    .parserConfiguration({ 'unknown-options-as-args': true })
    .positional('command', { choices: ['import'] as const, describe: 'What the job runs' })
    .positional('source', {
      type: 'string',
      describe: 'File path on the workers, http(s), sftp or ftp(s) URL',
    })
    .positional('args', {
      type: 'string',
      array: true,
      describe: 'The import flags (--profile, --report, ...)',
    })
    .option('tenant', {
      type: 'string',
      demandOption: true,
      describe: "The tenant's name: workers read its settings from <tenants>/<name>.json",
    })
    .option(
      'attempts',
      numberFlag(
        'attempts',
        { min: 1, max: 100, whole: true, unit: 'runs' },
        'Runs of the job in all when runs fail (default 3)',
      ),
    )
    .option('retry-delay', {
      type: 'number',
      describe: 'Seconds before the first retry; each next one waits twice as long (default 60)',
    })
    .options(redisOption);
}

function jobFrom(args: Record<string, unknown>): FeedJob {
  return {
    command: 'import',
    source: String(args.source),
    args: Array.isArray(args.args) ? (args.args as unknown[]).map(String) : [],
    tenant: String(args.tenant),
  };
}

function enqueueOptionsFrom(args: Record<string, unknown>) {
  const attempts = args.attempts;
  const delay = args['retry-delay'];
  if (attempts !== undefined && (!Number.isInteger(attempts) || (attempts as number) < 1)) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--attempts must be a whole number of at least 1, found ${attempts}`,
    );
  }
  if (delay !== undefined && !((delay as number) >= 0)) {
    throw new CatalogIoError('CONFIG_INVALID', `--retry-delay must be a number of seconds, found ${delay}`);
  }
  return {
    ...(attempts !== undefined && { attempts: attempts as number }),
    ...(delay !== undefined && { retryDelayMs: (delay as number) * 1000 }),
  };
}

export const enqueueCommand: CommandFactory = (out) => ({
  command: 'enqueue <command> <source> [args..]',
  describe: 'Add a feed job to the queue in Redis, for the next free worker',
  builder: (y: Argv) =>
    withJobOptions(y).example('$0 enqueue import feed.csv --profile p.json --tenant acme', ''),
  handler: async (args: Record<string, unknown>) => {
    const { checkFeedJob, checkTenantName } = await import('../../jobs/feed-job.js');
    const { enqueueFeed } = await import('../../jobs/queue.js');
    checkTenantName(String(args.tenant));
    const job = checkFeedJob(jobFrom(args));
    const options = enqueueOptionsFrom(args);
    const added = await withQueue(args, (queue) => enqueueFeed(queue, job, options));
    out.print(String(added.id));
    out.error(`queued: job ${added.id}, import ${job.source} for ${job.tenant}`);
  },
});

export const scheduleCommand: CommandFactory = (out) => ({
  command: 'schedule <action>',
  describe:
    'Nightly feed jobs: schedule add <name> --cron "0 2 * * *" import <source> ..., list, remove <name>',
  builder: (y: Argv) =>
    y
      .command({
        command: 'add <name> <command> <source> [args..]',
        describe: 'Create or replace a schedule that enqueues the job at every time of --cron',
        builder: (a: Argv) =>
          withJobOptions(a)
            .positional('name', { type: 'string', describe: "The schedule's name (replaced when it exists)" })
            .option('cron', {
              type: 'string',
              demandOption: true,
              describe: 'Cron pattern, e.g. "0 2 * * *"',
            })
            .option('tz', {
              type: 'string',
              describe: "Time zone of the pattern, e.g. Europe/Paris (default the workers')",
            }),
        handler: async (args: Record<string, unknown>) => {
          const { checkFeedJob, checkTenantName } = await import('../../jobs/feed-job.js');
          const { scheduleFeed } = await import('../../jobs/queue.js');
          checkTenantName(String(args.tenant));
          const job = checkFeedJob(jobFrom(args));
          const name = String(args.name);
          const options = {
            ...enqueueOptionsFrom(args),
            cron: String(args.cron),
            ...(typeof args.tz === 'string' && { tz: args.tz }),
          };
          const { next } = await withQueue(args, (queue) =>
            scheduleFeed(queue, name, job, options).catch((err: Error) => {
              throw new CatalogIoError(
                'CONFIG_INVALID',
                `--cron ${JSON.stringify(options.cron)}: ${err.message}`,
              );
            }),
          );
          out.error(
            `scheduled: ${name}, import ${job.source} for ${job.tenant} at "${options.cron}"${next ? `; next ${new Date(next).toISOString()}` : ''}`,
          );
        },
      })
      .command({
        command: 'list',
        describe: 'The schedules and their next run',
        builder: (a: Argv) => a.options(redisOption).option('json', { type: 'boolean', default: false }),
        handler: async (args: Record<string, unknown>) => {
          const { listSchedules } = await import('../../jobs/queue.js');
          const schedules = await withQueue(args, listSchedules);
          if (args.json) return out.print(JSON.stringify(schedules));
          if (schedules.length === 0) return out.print('no schedules');
          for (const s of schedules) {
            out.print(
              `${s.name}  "${s.cron ?? ''}"${s.tz ? ` ${s.tz}` : ''}  next ${s.next ? new Date(s.next).toISOString() : '-'}  import ${s.job?.source ?? '?'} for ${s.job?.tenant ?? '?'}`,
            );
          }
        },
      })
      .command({
        command: 'remove <name>',
        describe: 'Remove a schedule (jobs it already queued stay)',
        builder: (a: Argv) => a.positional('name', { type: 'string' }).options(redisOption),
        handler: async (args: Record<string, unknown>) => {
          const removed = await withQueue(args, (queue) => queue.removeJobScheduler(String(args.name)));
          if (!removed)
            throw new CatalogIoError('CONFIG_INVALID', `No schedule named ${JSON.stringify(args.name)}`);
          out.error(`removed: schedule ${args.name}`);
        },
      })
      .demandCommand(1, 'Name an action: add, list or remove'),
  handler: () => undefined,
});

export const jobsCommand: CommandFactory = (out) => ({
  command: 'jobs',
  describe: 'Feed jobs waiting, running, done and failed, with their summaries',
  builder: (y: Argv) =>
    y
      .options(redisOption)
      .option('json', { type: 'boolean', default: false, describe: 'One JSON array on stdout' })
      .option('limit', {
        ...numberFlag('limit', { min: 1, max: 10_000, whole: true, unit: 'jobs' }, 'Jobs shown per state'),
        default: 50,
      }),
  handler: async (args: Record<string, unknown>) => {
    const { listJobs } = await import('../../jobs/queue.js');
    const jobs = await withQueue(args, (queue) => listJobs(queue, Number(args.limit) || 50));
    if (args.json) return out.print(JSON.stringify(jobs));
    if (jobs.length === 0) return out.print('no jobs');
    for (const j of jobs) {
      const outcome = j.result?.summary?.outcomes as Record<string, number> | undefined;
      const counts = outcome
        ? Object.entries(outcome)
            .filter(([, n]) => n > 0)
            .map(([o, n]) => `${o} ${n}`)
            .join(' · ')
        : '';
      const detail =
        j.state === 'completed'
          ? `exit ${j.result?.exitCode}${counts ? `: ${counts}` : ''}`
          : j.state === 'failed' || j.failedReason
            ? (j.failedReason ?? '')
            : '';
      out.print(
        `${j.id.padEnd(6)} ${j.state.padEnd(9)} ${j.tenant}  ${j.source}  runs ${j.runs}${detail ? `  ${detail}` : ''}`,
      );
    }
  },
});

export const workerCommand: CommandFactory = (out, setExitCode) => ({
  command: 'worker',
  describe: 'Run feed jobs from the queue in Redis until stopped (SIGTERM: finishes the jobs it runs)',
  builder: (y: Argv) =>
    y
      .options(redisOption)
      .option('concurrency', {
        ...numberFlag('concurrency', { min: 1, max: 64, whole: true, unit: 'jobs' }, 'Jobs run at once'),
        default: 1,
      })
      .option('tenants', {
        type: 'string',
        default: 'tenants',
        describe: 'Folder of <tenant>.json settings files (catalogUrl, damUrl, apiKey, ...)',
      })
      .option('stalled-after', {
        type: 'string',
        default: '30',
        describe:
          'Seconds (or 30s, 2m) after which the job of a worker that stopped answering goes to another worker',
      })
      .option('drain-timeout', {
        type: 'string',
        default: '600',
        describe:
          'Stopping (SIGTERM, SIGINT): seconds (or 10m) the running jobs may take to finish before they are interrupted (resumable)',
      }),
  handler: async (args: Record<string, unknown>) => {
    const concurrency = Number(args.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--concurrency must be a whole number from 1 to 64, found ${args.concurrency}`,
      );
    }
    const stalled = parseSecondsFlag('--stalled-after', args['stalled-after'], 1);
    const drainSeconds = parseSecondsFlag('--drain-timeout', args['drain-timeout'], 0);
    const url = redisUrlFrom(args);
    // Signals are caught from the start and until the process ends: a signal with no handler left
    // would end the worker at once, its jobs with it.
    const signals = new SignalWatch();
    try {
      const { startFeedWorker } = await import('../../jobs/worker.js');
      // A worker started before Redis is up (a reboot) waits for it, as a running worker rides out
      // an outage; a signal meanwhile ends it at once.
      const redis = await connectWaiting(url, signals, out);
      if (typeof redis === 'string') {
        out.error(`worker: ${redis} while waiting for Redis: stopped`);
        setExitCode(redis === 'SIGINT' ? 130 : 143);
        return;
      }
      const worker = startFeedWorker({
        connection: redis,
        redisUrl: url,
        concurrency,
        tenantsDir: String(args.tenants),
        stalledAfterMs: stalled * 1000,
        log: (line) => out.error(line),
      });
      await worker.waitUntilReady();
      out.error(`worker: taking feed jobs from ${redactRedisUrl(url)} (${concurrency} at a time)`);
      const signal = await signals.first;
      out.error(
        `worker: ${signal}: taking no new job; ${worker.running} running, given up to ${drainSeconds} s to finish (${signal} again: interrupt them now)`,
      );
      signals.onNext((again) => {
        out.error(`worker: ${again}: interrupting the running jobs (they resume later)`);
        worker.hurry();
      });
      const { interrupted } = await worker.drain(drainSeconds * 1000);
      out.error(
        `worker: stopped${interrupted ? `; ${interrupted} job(s) interrupted, to be resumed by the next worker` : ''}`,
      );
      redis.disconnect();
    } finally {
      signals.close();
    }
  },
});

/** The first wait for Redis, then each next one twice as long, up to the last. */
const REDIS_WAIT = Object.freeze({ firstMs: 1_000, maxMs: 30_000, sayEveryMs: 60_000 });

/**
 * Errors that waiting does not mend (a refused password or user, a certificate not trusted): said at
 * once, as bad settings are.
 */
const NOT_WAITED =
  /WRONGPASS|NOAUTH|NOPERM|invalid password|invalid username|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i;

/**
 * The queue's Redis connection, once Redis answers: while it cannot be reached (REDIS_UNREACHABLE),
 * says so with the time it started waiting and tries again, 1 s then twice as long each time up to
 * 30 s, and again every minute while it waits. Resolves with the signal instead when one comes.
 */
async function connectWaiting(
  url: string,
  signals: SignalWatch,
  out: Output,
): Promise<import('ioredis').Redis | NodeJS.Signals> {
  const { connectRedis } = await import('../../redis/connection.js');
  const { clockTime } = await import('../../api/service-http.js');
  const { sleep } = await import('../../api/retry.js');
  // The first signal also ends the wait between tries at once (the signal is the abort's reason).
  const stop = new AbortController();
  void signals.first.then((signal) => stop.abort(signal));
  let since: Date | undefined;
  let said = 0;
  let delay: number = REDIS_WAIT.firstMs;
  for (;;) {
    const attempt = connectRedis(url, { forQueue: true });
    const outcome = await Promise.race([
      attempt.then(
        (redis) => ({ redis }),
        (err: unknown) => ({ err }),
      ),
      signals.first.then((signal) => ({ signal })),
    ]);
    if ('signal' in outcome) {
      attempt.then(
        (redis) => redis.disconnect(),
        () => undefined,
      );
      return outcome.signal;
    }
    if ('redis' in outcome) {
      if (since)
        out.error(`worker: Redis at ${redactRedisUrl(url)} answers (waited since ${clockTime(since)})`);
      return outcome.redis;
    }
    const err = outcome.err;
    if (!isCatalogIoError(err, 'REDIS_UNREACHABLE') || NOT_WAITED.test(err.message)) throw err;
    if (!since) {
      since = new Date();
      said = Date.now();
      out.error(
        `worker: ${err.message}; waiting for it since ${clockTime(since)}, trying again in ${delay / 1000} s, then less often (at most every ${REDIS_WAIT.maxMs / 1000} s). SIGTERM or Ctrl-C stops the worker`,
      );
    } else if (Date.now() - said >= REDIS_WAIT.sayEveryMs) {
      said = Date.now();
      out.error(
        `worker: still waiting for Redis since ${clockTime(since)}: ${err.message}; next try in ${delay / 1000} s`,
      );
    }
    await sleep(delay, stop.signal);
    if (stop.signal.aborted) return stop.signal.reason as NodeJS.Signals;
    delay = Math.min(delay * 2, REDIS_WAIT.maxMs);
  }
}

/** SIGINT and SIGTERM, caught while the worker lives: the first, then each next one. */
class SignalWatch {
  readonly first: Promise<NodeJS.Signals>;
  private next: ((signal: NodeJS.Signals) => void) | undefined;
  private readonly handler: (signal: NodeJS.Signals) => void;

  constructor() {
    let resolveFirst: (signal: NodeJS.Signals) => void = () => {};
    this.first = new Promise((resolve) => {
      resolveFirst = resolve;
    });
    let seen = false;
    this.handler = (signal) => {
      if (!seen) {
        seen = true;
        resolveFirst(signal);
      } else this.next?.(signal);
    };
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  onNext(listener: (signal: NodeJS.Signals) => void): void {
    this.next = listener;
  }

  close(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}
