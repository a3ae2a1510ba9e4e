// One factory turns every error answer of the two services (and every transport failure) into an
// ApiError with a stable code. It understands each body shape the specs list:
//   gateway            { message, request_id }                          (401, 403, 429)
//   catalog / DAM 400  { validationFailures: { <param>: [{ PropertyName, ErrorMessage, AttemptedValue }] } }
//   DAM body checks    { validationFailures: { error: ["message", ...] } }
//   problem details    { type, title, status, detail, instance }        (403, 404)
//   409 / 500          { error: "..." }
//   anything else      a plain-text body, or no body at all
// The API key never reaches an ApiError: it is not part of the path, and any echo of it in a body is masked.
import { CatalogIoError, type ErrorCode } from '../errors.js';
import { MIN_SECRET_CHARS } from '../secrets.js';
import { ATTEMPT_TIMEOUT, formatDuration } from './deadline.js';

export type ServiceName = 'Catalog API' | 'DAM API';

export interface ApiFailure {
  /** The property or query parameter the service named, when it named one. */
  field?: string;
  message: string;
  /** The value the service says it was sent. */
  attempted?: unknown;
}

export interface ApiErrorInit {
  service: ServiceName;
  method: string;
  /** Request path below the service URL, without the query string. */
  path: string;
  status?: number;
  requestId?: string;
  failures?: ApiFailure[];
  /** Seconds the service asked us to wait (429, 503). */
  retryAfterSeconds?: number;
  /** A write whose outcome is unknown: it may have been processed. Re-check by reference before retrying. */
  ambiguous?: boolean;
  /** Number of attempts made, retries included. */
  attempts?: number;
  cause?: unknown;
}

export class ApiError extends CatalogIoError {
  readonly service: ServiceName;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly failures: ApiFailure[];
  readonly retryAfterSeconds: number | undefined;
  readonly ambiguous: boolean;
  /** An ambiguous write's message without its `may have been processed` note (for a caller whose look-up settled it). */
  unmarkedMessage: string;
  attempts: number;

  constructor(code: ErrorCode, message: string, init: ApiErrorInit) {
    super(code, message, init.cause === undefined ? {} : { cause: init.cause });
    this.name = 'ApiError';
    this.service = init.service;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.requestId = init.requestId;
    this.failures = init.failures ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.ambiguous = init.ambiguous ?? false;
    this.unmarkedMessage = message;
    this.attempts = init.attempts ?? 1;
  }

  /** A copy marked as a write that may have been processed. */
  asAmbiguous(): ApiError {
    const copy = new ApiError(
      this.code,
      `${this.message}; the ${this.method} may have been processed: check before trying again`,
      { ...this.init(), ambiguous: true },
    );
    copy.details.errno = this.details.errno;
    copy.unmarkedMessage = this.message;
    return copy;
  }

  /**
   * A copy whose message says what was tried (`after 6 tries`) and what to raise; the
   * number of tries is also in `attempts` and `details.attempts`.
   */
  afterTries(attempts: number, note: string): ApiError {
    const copy = new ApiError(this.code, note ? `${this.message}${note}` : this.message, {
      ...this.init(),
      attempts,
      ambiguous: this.ambiguous,
    });
    Object.assign(copy.details, this.details, { attempts });
    return copy;
  }

  private init(): ApiErrorInit {
    return {
      service: this.service,
      method: this.method,
      path: this.path,
      status: this.status,
      requestId: this.requestId,
      failures: this.failures,
      retryAfterSeconds: this.retryAfterSeconds,
      attempts: this.attempts,
      cause: this.cause,
    };
  }
}

export function isApiError(err: unknown, code?: ErrorCode): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

/** The HTTP status a code stands for; statuses without their own code are API_BAD_RESPONSE (4xx) or API_SERVER (5xx). */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return 'API_VALIDATION';
    case 401:
      return 'API_UNAUTHORIZED';
    case 403:
      return 'API_FORBIDDEN';
    case 404:
    case 410:
      return 'API_NOT_FOUND';
    case 409:
      return 'API_CONFLICT';
    case 414:
      return 'API_URL_TOO_LONG';
    case 429:
      return 'API_RATE_LIMITED';
    default:
      return status >= 500 ? 'API_SERVER' : 'API_BAD_RESPONSE';
  }
}

const WHAT: Partial<Record<ErrorCode, string>> = {
  API_UNAUTHORIZED: 'the API key was refused',
  API_FORBIDDEN: 'the API key lacks permission for this operation',
  API_NOT_FOUND: 'not found',
  API_VALIDATION: 'the request was refused as invalid',
  API_CONFLICT: 'conflict',
  API_URL_TOO_LONG: 'the request URL is too long (limit about 8,000 characters)',
  API_RATE_LIMITED: 'rate limit reached',
  API_SERVER: 'the service failed',
  API_BAD_RESPONSE: 'unexpected answer',
};

export interface ErrorResponse {
  service: ServiceName;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Strings that must never appear in an error (the API keys). */
  secrets: readonly string[];
}

/** The one factory: an HTTP error answer -> ApiError. */
export function apiErrorFromResponse(res: ErrorResponse): ApiError {
  const code = codeForStatus(res.status);
  const parsed = parseErrorBody(res.body);
  const mask = masker(res.secrets);
  const failures = parsed.failures.map((f) => ({
    ...(f.field === undefined ? {} : { field: mask(f.field) }),
    message: mask(f.message),
    ...(f.attempted === undefined ? {} : { attempted: maskValue(f.attempted, mask) }),
  }));
  const requestId =
    parsed.requestId ?? header(res.headers, 'x-request-id') ?? header(res.headers, 'request-id');
  const retryAfterSeconds =
    res.status === 429 || res.status === 503
      ? retryAfterSecondsOf(header(res.headers, 'retry-after'))
      : undefined;
  const detail = failures.length > 0 ? failures.map(formatFailure).join('; ') : mask(parsed.message ?? '');
  const parts = [
    `${res.service} ${res.method} ${res.path}: ${res.status} ${WHAT[code] ?? 'error'}`,
    detail ? `: ${truncate(detail, 1000)}` : '',
    retryAfterSeconds !== undefined ? ` (retry after ${retryAfterSeconds} s)` : '',
    requestId ? ` [request id ${mask(requestId)}]` : '',
  ];
  return new ApiError(code, parts.join(''), {
    service: res.service,
    method: res.method,
    path: res.path,
    status: res.status,
    ...(requestId ? { requestId: mask(requestId) } : {}),
    failures,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

/** Transport failures (no HTTP answer) -> API_NETWORK or API_TIMEOUT. The undici error is kept as `errno` only. */
export function apiErrorFromNetwork(
  err: unknown,
  req: {
    service: ServiceName;
    method: string;
    path: string;
    secrets: readonly string[];
    /** The try's time limit, ms, for the message of a timeout. */
    timeoutMs?: number;
  },
): ApiError {
  const errno = networkCode(err) ?? 'UNKNOWN';
  const timeout = TIMEOUT_CODES.has(errno);
  const mask = masker(req.secrets);
  const raw = err instanceof Error ? err.message : String(err);
  const what = !timeout
    ? 'could not reach the service'
    : req.timeoutMs !== undefined
      ? `no complete answer within ${formatDuration(req.timeoutMs)}`
      : 'no answer in time';
  // Our own deadline's message only repeats the time; undici's say which phase ran out.
  const shown = errno === ATTEMPT_TIMEOUT ? '' : raw && !raw.includes(errno) ? `: ${mask(raw)}` : '';
  const message = `${req.service} ${req.method} ${req.path}: ${what} (${errno}${shown})`;
  const apiErr = new ApiError(timeout ? 'API_TIMEOUT' : 'API_NETWORK', message, {
    service: req.service,
    method: req.method,
    path: req.path,
  });
  apiErr.details.errno = errno;
  return apiErr;
}

/** A 2xx answer that is not what the spec promises (not JSON, missing Location, foreign @nextLink...). */
export function badResponse(
  req: { service: ServiceName; method: string; path: string },
  status: number,
  what: string,
): ApiError {
  return new ApiError('API_BAD_RESPONSE', `${req.service} ${req.method} ${req.path}: ${status} ${what}`, {
    ...req,
    status,
  });
}

const TIMEOUT_CODES = new Set([
  ATTEMPT_TIMEOUT,
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'UND_ERR_ABORTED',
]);

/** The errno-like code of a transport failure (undici wraps some: look at the cause too). */
export function networkCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && !code.startsWith('API_')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

interface ParsedBody {
  message?: string;
  requestId?: string;
  failures: ApiFailure[];
}

/**
 * A body that is not JSON as one line: an HTML page (a proxy's, a login's) by its title or its text,
 * any text with its line breaks and runs of spaces made one space, so an error stays one line.
 */
function plainText(body: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1];
  const text = title ?? (body.startsWith('<') ? body.replace(/<[^>]*>/g, ' ') : body);
  return text.replace(/\s+/g, ' ').trim();
}

/** Reads any of the error bodies the specs list; unknown JSON and plain text become the message. */
export function parseErrorBody(text: string): ParsedBody {
  const trimmed = text.trim();
  if (!trimmed) return { failures: [] };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { message: truncate(plainText(trimmed), 500), failures: [] };
  }
  if (typeof json === 'string') return { message: json, failures: [] };
  if (!json || typeof json !== 'object' || Array.isArray(json))
    return { message: truncate(trimmed, 500), failures: [] };
  const o = json as Record<string, unknown>;
  const failures = validationFailuresOf(o.validationFailures ?? o.ValidationFailures);
  const requestId = str(o.request_id) ?? str(o.requestId);
  // Problem details first (title + detail), then gateway `message`, then `{error}`.
  const message =
    joinDefined([str(o.title), str(o.detail)], ': ') ??
    str(o.message) ??
    str(o.error) ??
    str((o.error as Record<string, unknown> | undefined)?.message) ??
    (failures.length > 0 ? undefined : truncate(trimmed, 500));
  return {
    failures,
    ...(message !== undefined ? { message } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  };
}

function validationFailuresOf(v: unknown): ApiFailure[] {
  if (!v || typeof v !== 'object') return [];
  const out: ApiFailure[] = [];
  const entries = Array.isArray(v) ? [['', v] as const] : Object.entries(v as Record<string, unknown>);
  for (const [key, list] of entries) {
    const items = Array.isArray(list) ? list : [list];
    for (const item of items) {
      if (typeof item === 'string') {
        // DAM body checks: keyed by `error`, plain messages.
        out.push(key && key !== 'error' ? { field: key, message: item } : { message: item });
      } else if (item && typeof item === 'object') {
        const f = item as Record<string, unknown>;
        const message = str(f.ErrorMessage) ?? str(f.errorMessage) ?? str(f.message) ?? JSON.stringify(f);
        const field = str(f.PropertyName) ?? str(f.propertyName) ?? (key || undefined);
        const attempted = 'AttemptedValue' in f ? f.AttemptedValue : f.attemptedValue;
        out.push({
          message,
          ...(field !== undefined ? { field } : {}),
          ...(attempted !== undefined ? { attempted } : {}),
        });
      }
    }
  }
  return out;
}

function formatFailure(f: ApiFailure): string {
  const attempted =
    f.attempted === undefined || f.attempted === null
      ? ''
      : ` (sent: ${truncate(JSON.stringify(f.attempted), 120)})`;
  return `${f.field ? `${f.field}: ` : ''}${f.message}${attempted}`;
}

/** Retry-After as seconds: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function retryAfterSecondsOf(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

export function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Replaces every secret with `***` (those of MIN_SECRET_CHARS and more: shorter ones would mangle text). */
export function masker(secrets: readonly string[]): (text: string) => string {
  const real = secrets.filter((s) => s.length >= MIN_SECRET_CHARS);
  if (real.length === 0) return (t) => t;
  return (text) => real.reduce((acc, s) => acc.split(s).join('***'), text);
}

function maskValue(v: unknown, mask: (t: string) => string): unknown {
  if (typeof v === 'string') return mask(v);
  if (v === null || typeof v !== 'object') return v;
  return JSON.parse(mask(JSON.stringify(v)));
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function joinDefined(parts: Array<string | undefined>, sep: string): string | undefined {
  const defined = parts.filter((p): p is string => p !== undefined);
  return defined.length > 0 ? defined.join(sep) : undefined;
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
