// The retry policy, in one place, with its defaults written out.
//
// What is retried:
//   - answers 429 (waiting what Retry-After says, in seconds or as an HTTP date) and 500, 502, 503, 504;
//   - transport failures: connection resets (ECONNRESET, UND_ERR_SOCKET, EPIPE), refused or failed
//     connections, and timeouts (connect, headers, body, and a try past its deadline).
// Which methods:
//   - GET, HEAD, PUT, PATCH and DELETE are idempotent here: every retryable failure is retried.
//   - POST creates a record, so it is retried only when the request provably was not processed:
//     a 429 (refused by the gateway before reaching the service) or a connection that never opened
//     (ECONNREFUSED, connect timeout, DNS failure). Any other failure of a POST goes up marked
//     `ambiguous: true`, so the import runner re-checks by reference before trying again.
// How long to wait: exponential backoff with full jitter, random(0, min(cap, base * 2^(attempt-1))),
// except after a 429 or a 503, where Retry-After (when given) is the wait, plus a little jitter.
// How long in all: a request's tries and waits share one budget (2 minutes by default, tries
// included); a wait that would not fit in what is left is not started. A 429 is not counted against
// `maxAttempts`: the service refused the request before doing anything, so a storm of 429s is waited
// out for as long as the budget lasts. Nor is a failure that says the service cannot be reached.
// A service that cannot be reached at all is not retried here but waited for (src/api/circuit.ts).
// A 429 also lowers the limiter's pace (AdaptivePace in src/api/limiter.ts), so the retries and the
// requests after them are not refused again window after window.
import { ATTEMPT_TIMEOUT } from './deadline.js';
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
  /** Time one request may spend in all, its tries and the waits between them, ms. */
  budgetMs: number;
  /** Statuses retried for idempotent methods. */
  retryStatuses: readonly number[];
  /** Transport error codes retried for idempotent methods. */
  retryErrorCodes: readonly string[];
  /** Transport error codes that prove the request never left: retried for POST too. */
  notSentErrorCodes: readonly string[];
  /** Methods retried on any retryable failure. */
  idempotentMethods: readonly string[];
  /**
   * Every wait computed here (backoff, Retry-After) is multiplied by this: 1 for users; tests run a
   * scenario's shape in less time with `CATALOG_IO_TEST_TIME_SCALE` (see src/config/connect.ts).
   */
  timeScale: number;
}

/** Transport failures that say the service cannot be reached (DNS names that do not resolve are not). */
const UNREACHABLE: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  ATTEMPT_TIMEOUT,
];

export const RETRY_DEFAULTS: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  budgetMs: 120_000,
  retryStatuses: [429, 500, 502, 503, 504],
  // Every failure that says the service cannot be reached is worth another try.
  retryErrorCodes: UNREACHABLE,
  notSentErrorCodes: [
    'ECONNREFUSED',
    'UND_ERR_CONNECT_TIMEOUT',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH',
  ],
  idempotentMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'],
  timeScale: 1,
});

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { ...RETRY_DEFAULTS, ...overrides };
}

/** Why a failed request is not tried again. */
export type GiveUpReason =
  /** The failure is not one that is retried (a 400, a POST that may have been processed...). */
  | 'final'
  /** `maxAttempts` tries were made. */
  | 'attempts'
  /** The wait before the next try would not fit in the request's budget. */
  | 'budget'
  /** The service asked (Retry-After) for a wait longer than `maxRetryAfterMs`. */
  | 'retry-after';

export type RetryDecision =
  | { retry: true; delayMs: number }
  | {
      retry: false;
      /** The failure of a POST whose outcome is unknown. */
      ambiguous: boolean;
      reason: GiveUpReason;
    };

/**
 * Whether to try again after `attempt` (1-based) failed with `err`, with `remainingMs` of the
 * request's budget left. `random` is injectable so the jitter can be checked.
 */
export function decideRetry(
  policy: RetryPolicy,
  method: string,
  attempt: number,
  err: ApiError,
  random: () => number = Math.random,
  remainingMs: number = policy.budgetMs,
): RetryDecision {
  const idempotent = policy.idempotentMethods.includes(method.toUpperCase());
  const errno =
    err.status === undefined && typeof err.details.errno === 'string' ? err.details.errno : undefined;
  const retryable =
    err.status !== undefined
      ? policy.retryStatuses.includes(err.status)
      : errno !== undefined && policy.retryErrorCodes.includes(errno);
  const notSent = err.status === 429 || (errno !== undefined && policy.notSentErrorCodes.includes(errno));
  if (!retryable && !notSent) return { retry: false, ambiguous: false, reason: 'final' };
  if (!idempotent && !notSent) return { retry: false, ambiguous: true, reason: 'final' };
  // A 429, or a service that cannot be reached, says nothing of the request: its time bounds it, not
  // its tries (the circuit then holds it while the service is away).
  if (attempt >= policy.maxAttempts && err.status !== 429 && unreachableKind(err) === undefined)
    return { retry: false, ambiguous: false, reason: 'attempts' };
  let delayMs: number;
  if ((err.status === 429 || err.status === 503) && err.retryAfterSeconds !== undefined) {
    const waitMs = err.retryAfterSeconds * 1000;
    if (waitMs > policy.maxRetryAfterMs) return { retry: false, ambiguous: false, reason: 'retry-after' };
    // A little jitter so requests that were refused together do not come back together.
    delayMs = waitMs + Math.floor(random() * Math.min(1000, policy.baseDelayMs));
  } else delayMs = backoffMs(policy, attempt, random);
  delayMs = Math.round(delayMs * policy.timeScale);
  // A wait that uses up the budget would only end in a try with no time left.
  if (delayMs >= remainingMs) return { retry: false, ambiguous: false, reason: 'budget' };
  return { retry: true, delayMs };
}

/** Statuses a gateway answers when the service behind it cannot be reached. */
const GATEWAY_STATUSES = [502, 503, 504];

/** A gateway's answer in place of the service's (502, 503, 504): no answer from the service itself. */
export function isGatewayStatus(status: number): boolean {
  return GATEWAY_STATUSES.includes(status);
}
const UNREACHABLE_CODES = new Set(UNREACHABLE);

/**
 * Whether a failure says the service cannot be reached (rather than that it refused this request):
 * the circuit counts these. `ECONNREFUSED` or `502`, for people; undefined when it is not one.
 */
export function unreachableKind(err: ApiError): string | undefined {
  if (err.status !== undefined) return isGatewayStatus(err.status) ? String(err.status) : undefined;
  const errno = typeof err.details.errno === 'string' ? err.details.errno : undefined;
  return errno !== undefined && UNREACHABLE_CODES.has(errno) ? errno : undefined;
}

/** Full jitter: a random wait between 0 and min(cap, base * 2^(attempt-1)). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or at once when `signal` fires (a run that stops does not sit out a wait). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
