// Tells the configured targets that a run ended. A notification that cannot be delivered is a
// warning for the log, never a change to the run's outcome or exit code.
import type { RunSummary } from '../runner/summary-types.js';
import { sendMail } from './mail.js';
import { type NotifyOn, type NotifySettings, type NotifyTarget, runFailed } from './targets.js';
import { postWebhook, type WebhookOptions } from './webhook.js';

export interface NotifyOptions {
  targets: NotifyTarget[];
  on: NotifyOn;
  settings: NotifySettings;
  /** The run's report, attached to mail when small. */
  reportFile?: string;
  /** Webhook retry timing (tests shorten it). */
  webhook?: Omit<WebhookOptions, 'secret'>;
}

export interface NotifyResult {
  target: string;
  ok: boolean;
  /** Why it was not delivered, for people. */
  error?: string;
}

/** Delivers to every target (in parallel); resolves with one result per target, never rejects. */
export async function notifyRunEnd(summary: RunSummary, options: NotifyOptions): Promise<NotifyResult[]> {
  if (options.targets.length === 0 || (options.on === 'failure' && !runFailed(summary))) return [];
  return Promise.all(
    options.targets.map(async (target): Promise<NotifyResult> => {
      if (target.kind === 'webhook') {
        const name = `webhook ${new URL(target.url).origin}`;
        const delivery = await postWebhook(target.url, summary, {
          ...options.webhook,
          ...(options.settings.webhookSecret && { secret: options.settings.webhookSecret }),
        });
        return { target: name, ok: delivery.ok, ...(delivery.error && { error: delivery.error }) };
      }
      const name = `mail to ${target.to.join(', ')}`;
      if (!options.settings.smtpUrl) {
        return { target: name, ok: false, error: 'no SMTP server configured: set CATALOG_IO_SMTP_URL' };
      }
      const sent = await sendMail(summary, {
        smtpUrl: options.settings.smtpUrl,
        to: target.to,
        ...(options.settings.mailFrom && { from: options.settings.mailFrom }),
        ...(options.reportFile && { reportFile: options.reportFile }),
      });
      return { target: name, ok: sent.ok, ...(sent.error && { error: sent.error }) };
    }),
  );
}
