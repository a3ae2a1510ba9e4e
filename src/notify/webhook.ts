// POSTs a run's summary to a webhook: JSON, one delivery id kept across retries (so the receiver can
// drop duplicates), signed when a secret is configured. Retried on network failures, 429 and 5xx
// with exponential backoff; any other answer is final.
import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'undici';
import { displayName } from '../readers/sources/redact.js';
import type { RunSummary } from '../runner/summary-types.js';

export const WEBHOOK_DEFAULTS = Object.freeze({
  attempts: 5,
  /** The first retry waits this long, the next twice as long, ... */
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  timeoutMs: 15_000,
});

/**
 * Headers: `X-Catalog-IO-Signature: sha256=HEX`, the HMAC-SHA256 with the secret of
 * `TIMESTAMP.BODY`, where TIMESTAMP is `X-Catalog-IO-Timestamp` (seconds since the epoch): a
 * receiver recomputes it and refuses old timestamps, so a captured delivery cannot be replayed.
 */
export const SIGNATURE_HEADER = 'x-catalog-io-signature';
export const TIMESTAMP_HEADER = 'x-catalog-io-timestamp';
export const DELIVERY_HEADER = 'x-catalog-io-delivery';

export interface WebhookOptions {
  secret?: string;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
}

export interface Delivery {
  ok: boolean;
  attempts: number;
  /** The last answer's status, when there was one. */
  status?: number;
  /** Why it failed, for people (no secrets). */
  error?: string;
}

export function signBody(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export async function postWebhook(
  url: string,
  summary: RunSummary,
  options: WebhookOptions = {},
): Promise<Delivery> {
  const attempts = options.attempts ?? WEBHOOK_DEFAULTS.attempts;
  const base = options.baseDelayMs ?? WEBHOOK_DEFAULTS.baseDelayMs;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const body = JSON.stringify(summary);
  const delivery = randomUUID();
  let last: Delivery = { ok: false, attempts: 0 };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'catalog-io',
      [DELIVERY_HEADER]: delivery,
      [TIMESTAMP_HEADER]: timestamp,
    };
    if (options.secret) headers[SIGNATURE_HEADER] = signBody(options.secret, timestamp, body);
    let retryAfterMs: number | undefined;
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300)
        return { ok: true, attempts: attempt, status: res.statusCode };
      last = {
        ok: false,
        attempts: attempt,
        status: res.statusCode,
        error: `${displayName(url)} answered HTTP ${res.statusCode}`,
      };
      if (res.statusCode !== 429 && res.statusCode < 500) return last;
      const after = Number(res.headers['retry-after']);
      if (Number.isFinite(after) && after >= 0)
        retryAfterMs = Math.min(after * 1000, WEBHOOK_DEFAULTS.maxDelayMs);
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).message;
      last = { ok: false, attempts: attempt, error: `${displayName(url)} unreachable: ${code}` };
    }
    if (attempt < attempts) {
      await sleep(retryAfterMs ?? Math.min(WEBHOOK_DEFAULTS.maxDelayMs, base * 2 ** (attempt - 1)));
    }
  }
  return last;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
