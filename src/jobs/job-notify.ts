// A job that fails in the worker, before its import runs (no settings for its tenant on this worker,
// its process killed or never started on its last run), is told to the job's `--notify` targets by
// the worker: the import that would have told them never ran, and an unattended feed would fail
// unseen. The targets and `--notify-on` are the job's own flags; secrets (webhook key, SMTP server)
// are the worker's environment, as for the runs it starts. Never throws.
import { notStartedSummary } from '../cli/commands/run-end.js';
import type { NotifyOn, NotifyTarget } from '../notify/index.js';
import type { FeedJob } from './feed-job.js';

/** The job's `--notify` values and `--notify-on` (default failure), as the import would read them. */
function jobNotifyFlags(args: string[]): { notify: string[]; on: NotifyOn } {
  const notify: string[] = [];
  let on: NotifyOn = 'failure';
  for (let i = 0; i < args.length; i++) {
    const m = /^--(notify|notify-on)(?:=(.*))?$/.exec(args[i]!);
    if (!m) continue;
    const value = m[2] ?? args[++i];
    if (value === undefined) continue;
    if (m[1] === 'notify') notify.push(value);
    else if (value === 'always' || value === 'failure') on = value;
  }
  return { notify, on };
}

export async function notifyJobFailure(
  jobId: string | undefined,
  job: FeedJob,
  reason: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const flags = jobNotifyFlags(job.args);
  if (flags.notify.length === 0) return;
  try {
    const { notifyRunEnd, notifySettingsFrom, parseNotifyTarget } = await import('../notify/index.js');
    const targets: NotifyTarget[] = [];
    for (const text of flags.notify) {
      try {
        targets.push(parseNotifyTarget(text));
      } catch (err) {
        log(`job ${jobId}: warning: ${(err as Error).message}`);
      }
    }
    // As the import that never ran would have told it (run-end.ts); the message names the job.
    const summary = notStartedSummary(
      { runId: '', source: job.source, targets, startedAt: new Date() },
      `Job ${jobId} (${job.command} for tenant ${job.tenant}) failed on the worker before the import started: ${reason}`,
    );
    const results = await notifyRunEnd(summary, { targets, on: flags.on, settings: notifySettingsFrom(env) });
    for (const r of results)
      log(
        `job ${jobId}: ${r.ok ? `notified: ${r.target}` : `warning: ${r.target} not notified: ${r.error}`}`,
      );
  } catch (err) {
    log(`job ${jobId}: warning: not notified: ${(err as Error).message}`);
  }
}
