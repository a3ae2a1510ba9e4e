// What a feed run does around the import itself when it is one of many: the remote file is picked
// (newest match) before and moved to done/ after, the limit and lock are shared (`--redis`), and the
// run's end is told to people (`--notify`). Flags, checks and the summary they share.
import type { Argv } from 'yargs';
import { sharedStateOptions } from '../../config/flags.js';
import { CatalogIoError, isCatalogIoError } from '../../errors.js';
import { jobOfThisRun, RETRIED_EXITS, retriedByWorker } from '../../jobs/job-process.js';
import type { NotifyOn, NotifyTarget } from '../../notify/index.js';
import { isRemote, redactRemote } from '../../readers/remote/address.js';
import { displayName } from '../../readers/sources/redact.js';
import type { RunState, RunSummary } from '../../runner/summary-types.js';
import { redactText } from '../../secrets.js';
import type { Output } from '../output.js';

export function withRunEndOptions<T>(y: Argv<T>) {
  return y
    .options(sharedStateOptions)
    .option('notify', {
      type: 'string',
      array: true,
      describe: "Tell the run's end: webhook:URL or mailto:ADDRESS (repeatable; see docs/scale.md)",
    })
    .option('notify-on', {
      choices: ['failure', 'always'] as const,
      default: 'failure' as const,
      describe: 'When --notify tells: only when the run did not finish with every row ok, or always',
    })
    .option('done-dir', {
      type: 'string',
      describe: 'sftp/ftp sources: after a run with every row ok, move the file into this folder (e.g. done)',
    });
}

export interface RunEndArgs {
  notify?: string[];
  'notify-on'?: NotifyOn;
  'done-dir'?: string;
  [key: string]: unknown;
}

export interface RunStart {
  /** The run's id once the import recorded one; empty before (never one made up). */
  runId: string;
  /** The source to read: a pattern's newest match, resolved once so the same file is read and moved. */
  source: string;
  targets: NotifyTarget[];
  startedAt: Date;
}

/** Checks the flags and picks the remote file; before anything is asked of the tenant. */
export async function beginRun(spec: string, args: RunEndArgs): Promise<RunStart> {
  const startedAt = new Date();
  // No run yet: the import's run (its folder under .catalog-io/runs/) names the summary once there is one.
  const runId = '';
  let targets: NotifyTarget[] = [];
  if (args.notify?.length) {
    const { parseNotifyTarget } = await import('../../notify/index.js');
    targets = args.notify.map(parseNotifyTarget);
  }
  if (args['done-dir'] !== undefined && !isRemote(spec)) {
    throw new CatalogIoError('CONFIG_INVALID', '--done-dir moves sftp://, ftp:// and ftps:// sources only');
  }
  let source = spec;
  if (isRemote(spec)) {
    const { resolveRemote } = await import('../../readers/remote/index.js');
    source = await resolveRemote(spec);
  }
  return { runId, source, targets, startedAt };
}

export interface RunEnd {
  state: RunState;
  exitCode: number;
  entity?: string;
  tenant: string;
  rows: number;
  outcomes: Record<string, number>;
  requests: RunSummary['requests'];
  reportFile?: string;
  message: string;
}

export function runSummary(start: RunStart, end: RunEnd): RunSummary {
  const finished = new Date();
  return {
    runId: start.runId,
    command: 'import',
    source: isRemote(start.source) ? redactRemote(start.source) : displayName(start.source),
    ...(end.entity && { entity: end.entity }),
    tenant: end.tenant,
    state: end.state,
    exitCode: end.exitCode,
    outcomes: Object.fromEntries(Object.entries(end.outcomes).filter(([, n]) => n > 0)),
    rows: end.rows,
    requests: end.requests,
    startedAt: start.startedAt.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - start.startedAt.getTime(),
    ...(end.reportFile && { reportFile: end.reportFile }),
    message: redactText(end.message),
  };
}

/**
 * The summary of a run that failed before it started: no run was recorded, so no run id (not one made
 * up, that names no run folder), no rows and no requests. The CLI's early failures and a queued job
 * that failed on its worker are told with it.
 */
export function notStartedSummary(start: RunStart, message: string): RunSummary {
  return runSummary(start, {
    state: 'crashed',
    exitCode: 2,
    tenant: '',
    rows: 0,
    outcomes: {},
    requests: { total: 0, byMethod: {} },
    message,
  });
}

/**
 * A run that failed before it started (source server, Redis or the tenant unreachable, bad settings)
 * is told too: for an unattended feed, nobody else would notice. Never throws.
 */
export async function notifyEarlyFailure(
  spec: string,
  args: RunEndArgs,
  err: unknown,
  out: Output,
): Promise<void> {
  if (!args.notify?.length) return;
  try {
    const { parseNotifyTarget } = await import('../../notify/index.js');
    const startedAt = new Date();
    const start: RunStart = {
      runId: '',
      source: spec,
      targets: args.notify.map(parseNotifyTarget),
      startedAt,
    };
    const summary = notStartedSummary(start, err instanceof Error ? err.message : String(err));
    await endRun(
      start,
      summary,
      { ...args, 'done-dir': undefined },
      out,
      isCatalogIoError(err) ? err.code : undefined,
    );
  } catch {
    // a --notify flag that is not valid was already the error
  }
}

/**
 * Moves the remote file after a run with every row ok, then tells the targets; problems are warnings.
 * A queued job's attempt that its worker will retry tells nobody (`errorCode`: the error that ended
 * the run, if any: bad settings are not retried).
 */
export async function endRun(
  start: RunStart,
  summary: RunSummary,
  args: RunEndArgs,
  out: Output,
  errorCode?: string,
): Promise<void> {
  const doneDir = args['done-dir'];
  if (doneDir !== undefined && summary.state === 'finished' && summary.exitCode === 0) {
    const { moveRemote } = await import('../../readers/remote/index.js');
    try {
      const moved = await moveRemote(start.source, doneDir);
      out.error(`moved: ${summary.source} to ${moved}`);
    } catch (err) {
      out.error(`warning: ${(err as Error).message}`);
    }
  }
  if (start.targets.length === 0) return;
  const job = jobOfThisRun();
  if (job && retriedByWorker(job, summary.exitCode, errorCode)) {
    out.error(
      `not notified: attempt ${job.attempt} of ${job.attempts} of this queued job; the worker retries it, and its last attempt tells`,
    );
    return;
  }
  // A queued job's last attempt says it was the last: nobody was told of the ones before.
  const told =
    job && job.attempts > 1 && RETRIED_EXITS.includes(summary.exitCode)
      ? {
          ...summary,
          message: `${summary.message} (attempt ${job.attempt} of ${job.attempts} of the queued job, the last)`,
        }
      : summary;
  const { notifyRunEnd, notifySettingsFrom } = await import('../../notify/index.js');
  const results = await notifyRunEnd(told, {
    targets: start.targets,
    on: args['notify-on'] ?? 'failure',
    settings: notifySettingsFrom(),
    ...(summary.reportFile && { reportFile: summary.reportFile }),
  });
  for (const r of results) {
    out.error(r.ok ? `notified: ${r.target}` : `warning: ${r.target} not notified: ${r.error}`);
  }
}
