// Where a run's end is told: `webhook:URL` and `mailto:ADDRESS[,ADDRESS]`, and when: on failure (the
// default) or always. Checked once, at the edge; secrets (webhook key, SMTP login) come from the
// environment or the config file, never from these flags.
import { CatalogIoError } from '../errors.js';
import type { RunSummary } from '../runner/summary-types.js';

export type NotifyTarget = { kind: 'webhook'; url: string } | { kind: 'mail'; to: string[] };
export type NotifyOn = 'failure' | 'always';

export interface NotifySettings {
  /** Signs webhook bodies (HMAC-SHA256) when set. */
  webhookSecret?: string;
  /** `smtp://user:pass@host:587` or `smtps://...`: where mail is sent from. */
  smtpUrl?: string;
  /** The sender address; default `catalog-io@<host name>`. */
  mailFrom?: string;
}

/** Environment variables read for notifications. */
export const NOTIFY_ENV = {
  webhookSecret: 'CATALOG_IO_WEBHOOK_SECRET',
  smtpUrl: 'CATALOG_IO_SMTP_URL',
  mailFrom: 'CATALOG_IO_MAIL_FROM',
} as const;

export function notifySettingsFrom(env: NodeJS.ProcessEnv = process.env): NotifySettings {
  const get = (name: string) => (env[name]?.trim() ? env[name]!.trim() : undefined);
  const settings: NotifySettings = {};
  const secret = get(NOTIFY_ENV.webhookSecret);
  const smtp = get(NOTIFY_ENV.smtpUrl);
  const from = get(NOTIFY_ENV.mailFrom);
  if (secret) settings.webhookSecret = secret;
  if (smtp) settings.smtpUrl = smtp;
  if (from) settings.mailFrom = from;
  return settings;
}

const ADDRESS = /^[^\s@,;<>]+@[^\s@,;<>]+$/;

export function parseNotifyTarget(text: string): NotifyTarget {
  const t = text.trim();
  if (/^webhook:/i.test(t)) {
    const url = t.slice('webhook:'.length);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalid(`--notify webhook:URL needs a URL, found ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw invalid(`--notify webhook: must be http or https, found ${parsed.protocol}`);
    }
    return { kind: 'webhook', url };
  }
  if (/^mailto:/i.test(t)) {
    const to = decodeURIComponent(t.slice('mailto:'.length).replace(/\?.*$/, ''))
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const bad = to.find((a) => !ADDRESS.test(a));
    if (to.length === 0 || bad !== undefined) {
      throw invalid(`--notify mailto: needs mail addresses, found ${JSON.stringify(bad ?? '')}`);
    }
    return { kind: 'mail', to };
  }
  throw invalid(
    `--notify reads webhook:URL or mailto:ADDRESS, found ${JSON.stringify(t.replace(/\/\/[^/@]*@/, '//***@'))}`,
  );
}

export function parseNotifyOn(text: string): NotifyOn {
  if (text === 'failure' || text === 'always') return text;
  throw invalid(`--notify-on reads failure or always, found ${JSON.stringify(text)}`);
}

/** A run failed when it did not finish with every row ok. */
export function runFailed(summary: RunSummary): boolean {
  return summary.state !== 'finished' || summary.exitCode !== 0;
}

/** `finished`, `finished with failed rows`, `crashed`, ...: what a subject line says. */
export function outcomeWords(summary: RunSummary): string {
  if (summary.state === 'finished') return summary.exitCode === 0 ? 'succeeded' : 'finished with failed rows';
  return summary.state === 'running' ? 'is running' : summary.state;
}

function invalid(message: string): CatalogIoError {
  return new CatalogIoError('CONFIG_INVALID', message);
}
