// Mails a run's end through SMTP (nodemailer): the outcome in the subject, the summary in the body
// (as text for people and as summary.json), and the report attached when it is small enough to mail.
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { RunSummary } from '../runner/summary-types.js';
import { outcomeWords } from './targets.js';

/** Reports larger than this are named in the body instead of attached. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/**
 * How long a mail server may take to connect, greet, or answer any one command. nodemailer's own
 * defaults (2 minutes, 30 s, 10 minutes) let a server that accepts and then goes silent hold a finished
 * run, or a worker's slot, for ten minutes; a webhook gets 15 s.
 */
export const MAIL_TIMEOUT_MS = 20_000;

export interface MailOptions {
  smtpUrl: string;
  from?: string;
  to: string[];
  reportFile?: string;
  maxAttachmentBytes?: number;
  /** See MAIL_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface MailResult {
  ok: boolean;
  attachedReport: boolean;
  error?: string;
}

export function mailSubject(summary: RunSummary): string {
  const failed = (summary.outcomes.failed ?? 0) + (summary.outcomes.invalid ?? 0);
  const counts =
    failed > 0 ? ` (${failed} of ${summary.rows} rows failed or invalid)` : ` (${summary.rows} rows)`;
  return `catalog-io ${summary.command} ${outcomeWords(summary)}: ${basename(summary.source)}${counts}`;
}

export function mailBody(summary: RunSummary, reportNote: string | undefined): string {
  const outcomes = Object.entries(summary.outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(' · ');
  const pace = summary.requests.pace;
  return [
    summary.message,
    '',
    `command:   ${summary.command}${summary.entity ? ` (${summary.entity})` : ''}`,
    `source:    ${summary.source}`,
    `tenant:    ${summary.tenant}`,
    `run:       ${summary.runId || '(none: it failed before a run was recorded)'}`,
    `state:     ${summary.state}, exit code ${summary.exitCode}`,
    `rows:      ${summary.rows}${outcomes ? ` — ${outcomes}` : ''}`,
    `requests:  ${summary.requests.total}${summary.requests.rateLimited ? `, ${summary.requests.rateLimited} × 429` : ''}`,
    ...(pace && pace.timesLowered > 0
      ? [
          `pace:      lowered by 429s to ${pace.lowestPerWindow} of ${pace.limitPerWindow} requests per ${pace.windowSeconds} s at the lowest; ${(pace.belowLimitMs / 1000).toFixed(1)} s below the rate limit`,
        ]
      : []),
    `started:   ${summary.startedAt}`,
    `finished:  ${summary.finishedAt} (${(summary.durationMs / 1000).toFixed(1)} s)`,
    ...(reportNote ? [`report:    ${reportNote}`] : []),
    '',
    'The full summary is attached as summary.json.',
  ].join('\n');
}

export async function sendMail(summary: RunSummary, options: MailOptions): Promise<MailResult> {
  const { createTransport } = await import('nodemailer');
  const limit = options.maxAttachmentBytes ?? MAX_ATTACHMENT_BYTES;
  let attachReport = false;
  let reportNote: string | undefined;
  if (options.reportFile) {
    const size = await stat(options.reportFile).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) reportNote = `${options.reportFile} (not found)`;
    else if (size <= limit) {
      attachReport = true;
      reportNote = `${options.reportFile} (attached)`;
    } else reportNote = `${options.reportFile} (${(size / 1048576).toFixed(1)} MB: too large to attach)`;
  }
  const timeout = options.timeoutMs ?? MAIL_TIMEOUT_MS;
  const transport = createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  try {
    await transport.sendMail({
      from: options.from ?? `catalog-io@${hostname()}`,
      to: options.to,
      subject: mailSubject(summary),
      text: mailBody(summary, reportNote),
      attachments: [
        {
          filename: 'summary.json',
          content: JSON.stringify(summary, null, 2),
          contentType: 'application/json',
        },
        ...(attachReport && options.reportFile
          ? [{ filename: basename(options.reportFile), path: options.reportFile }]
          : []),
      ],
    });
    return { ok: true, attachedReport: attachReport };
  } catch (err) {
    const e = err as { code?: string; responseCode?: number; message?: string };
    const why = e.responseCode ? `SMTP ${e.responseCode}` : (e.code ?? 'failed');
    return { ok: false, attachedReport: false, error: `mail to ${options.to.join(', ')} not sent: ${why}` };
  } finally {
    transport.close();
  }
}
