// The retry policy, in one place, with its defaults written out.
//
// What is retried:
//   - answers 429 (waiting what Retry-After says, in seconds or as an HTTP date) and 500, 502, 503, 504;
//   - transport failures: connection resets (ECONNRESET, UND_ERR_SOCKET, EPIPE), refused or failed
//     connections, and timeouts (connect, headers, body).
// Which methods:
//   - GET, HEAD, PUT, PATCH and DELETE are idempotent here: every retryable failure is retried.
//   - POST creates a record, so it is retried only when the request provably was not processed:
//     a 429 (refused by the gateway before reaching the service) or a connection that never opened
//     (ECONNREFUSED, connect timeout, DNS failure). Any other failure of a POST goes up marked
//     `ambiguous: true`, so the import runner re-checks by reference before trying again.
// How long to wait: exponential backoff with full jitter, random(0, min(cap, base * 2^(attempt-1))),
// except after a 429, where Retry-After (when given) is the wait, plus a little jitter.
import type { ApiError } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Backoff base, ms: the first retry waits up to this long. */
  baseDelayMs: number;
  /** Backoff cap, ms. */
  maxDelayMs: number;
  /** The longest Retry-After we honour, ms; a longer one fails the request (the caller decides). */
  maxRetryAfterMs: number;
  /** Statuses retried for idempotent methods. */
  retryStatuses: readonly number[];
  /** Transport error codes retried for idempotent methods. */
  retryErrorCodes: readonly string[];
  /** Transport error codes that prove the request never left: retried for POST too. */
  notSentErrorCodes: readonly string[];
  /** Methods retried on any retryable failure. */
  idempotentMethods: readonly string[];
}

export const RETRY_DEFAULTS: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  retryStatuses: [429, 500, 502, 503, 504],
  retryErrorCodes: [
    'ECONNRESET',
    'EPIPE',
    'UND_ERR_SOCKET',
    'ECONNREFUSED',
    'ETIMEDOUT',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'EAI_AGAIN',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_CLOSED',
  ],
  notSentErrorCodes: [
    'ECONNREFUSED',
    'UND_ERR_CONNECT_TIMEOUT',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH',
  ],
  idempotentMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'],
});

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { ...RETRY_DEFAULTS, ...overrides };
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false /** The failure of a POST whose outcome is unknown. */; ambiguous: boolean };

/**
 * Whether to try again after `attempt` (1-based) failed with `err`.
 * `random` is injectable so the jitter can be checked.
 */
export function decideRetry(
  policy: RetryPolicy,
  method: string,
  attempt: number,
  err: ApiError,
  random: () => number = Math.random,
): RetryDecision {
  const idempotent = policy.idempotentMethods.includes(method.toUpperCase());
  const errno =
    err.status === undefined && typeof err.details.errno === 'string' ? err.details.errno : undefined;
  const retryable =
    err.status !== undefined
      ? policy.retryStatuses.includes(err.status)
      : errno !== undefined && policy.retryErrorCodes.includes(errno);
  const notSent = err.status === 429 || (errno !== undefined && policy.notSentErrorCodes.includes(errno));
  if (!retryable && !notSent) return { retry: false, ambiguous: false };
  if (!idempotent && !notSent) return { retry: false, ambiguous: true };
  if (attempt >= policy.maxAttempts) return { retry: false, ambiguous: false };
  if (err.status === 429 && err.retryAfterSeconds !== undefined) {
    const waitMs = err.retryAfterSeconds * 1000;
    if (waitMs > policy.maxRetryAfterMs) return { retry: false, ambiguous: false };
    // A little jitter so requests that were refused together do not come back together.
    return { retry: true, delayMs: waitMs + Math.floor(random() * Math.min(1000, policy.baseDelayMs)) };
  }
  return { retry: true, delayMs: backoffMs(policy, attempt, random) };
}

/** Full jitter: a random wait between 0 and min(cap, base * 2^(attempt-1)). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
