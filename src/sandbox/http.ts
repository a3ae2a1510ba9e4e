// The sandbox's own tiny HTTP vocabulary: a parsed request, a response value, and the error bodies
// the two specs define. Services return SandboxResponse values; only server.ts touches node:http.
import { randomUUID } from 'node:crypto';

export interface SandboxRequest {
  method: string;
  /** Path below the service prefix, percent-decoded, e.g. `/Products(12)` or `/CustomEntities('Store Locations')`. */
  path: string;
  /** Path below the service prefix exactly as sent (still percent-encoded). */
  rawPath: string;
  /** Query parameters, already decoded. */
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The request body parsed as JSON; undefined when there is no body. Throws BodyParseError on bad JSON. */
  json(): unknown;
  /** Raw body bytes (empty when none). */
  body: Buffer;
  /** Whether the API key is the read-only one. */
  readOnly: boolean;
  /** Absolute origin of the sandbox, e.g. `http://127.0.0.1:4010`. */
  origin: string;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialised when an object; written as-is when a Buffer or string; omitted when undefined. */
  body?: unknown;
  /** For the asset host: delay the body by this many ms after headers (slow responses). */
  delayBodyMs?: number;
}

export class BodyParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BodyParseError';
  }
}

export function requestId(): string {
  return randomUUID();
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return { status, body, headers };
}

export function noContent(headers: Record<string, string> = {}): SandboxResponse {
  return { status: 204, headers };
}

/** 401/403/429 from the API gateway: `{message, request_id}`. */
export function gatewayError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return json(status, { message, request_id: requestId() }, headers);
}

/** RFC 7807 problem details, as the catalog spec lists for 403 and 404. */
export function problem(status: number, title: string, detail: string, instance = ''): SandboxResponse {
  return json(
    status,
    { type: `https://httpstatuses.io/${status}`, title, status, detail, instance },
    { 'content-type': 'application/problem+json' },
  );
}

export interface ValidationFailure {
  PropertyName: string;
  ErrorMessage: string;
  AttemptedValue: unknown;
}

/** Catalog and DAM query-parameter 400: `validationFailures` keyed by the offending parameter. */
export function validationFailures(failures: Record<string, ValidationFailure[]>): SandboxResponse {
  return json(400, { validationFailures: failures });
}

/** Shorthand for one failure under one key. */
export function validationFailure(
  key: string,
  propertyName: string,
  message: string,
  attempted: unknown,
): SandboxResponse {
  return validationFailures({
    [key]: [{ PropertyName: propertyName, ErrorMessage: message, AttemptedValue: attempted }],
  });
}

/** DAM body-check 400: `validationFailures.error` is an array of message strings. */
export function damBodyErrors(messages: string[]): SandboxResponse {
  return json(400, { validationFailures: { error: messages } });
}

/** 409 and 500 bodies: `{error: string}`. */
export function errorBody(status: number, error: string): SandboxResponse {
  return json(status, { error });
}

/** A request a service cannot route: 404 problem details naming the path. */
export function notFoundPath(method: string, rawPath: string): SandboxResponse {
  return problem(404, 'Not Found', `No resource matches ${method} ${rawPath}`);
}

export function methodNotAllowed(method: string, rawPath: string, allowed: string[]): SandboxResponse {
  const res = problem(
    405,
    'Method Not Allowed',
    `${method} is not supported on ${rawPath}; use ${allowed.join(', ')}`,
  );
  res.headers = { ...res.headers, allow: allowed.join(', ') };
  return res;
}

/** A service mounted under a prefix of the sandbox's origin. */
export interface SandboxService {
  handle(req: SandboxRequest): Promise<SandboxResponse> | SandboxResponse;
  /** JSON-serialisable state for the persisted snapshot (absent for stateless services). */
  snapshot?(): unknown;
  /** Called once at start with what snapshot() returned in an earlier run. */
  restore?(state: unknown): void;
  /** What changed since the last drain, for the write log (stateful services). */
  journal?: ChangeJournal;
  /** Stops background work (timers, workers). */
  close?(): Promise<void> | void;
}

/**
 * A service's changes as small JSON operations, so that persisting a write costs the size of the
 * write, not of the state. Replaying a drained operation twice leaves the same state as once.
 */
export interface ChangeJournal {
  /** Starts remembering changes (only a persisted sandbox pays for it). */
  track(): void;
  /** The operations since the last drain, oldest first; empty when nothing changed. */
  drain(): unknown[];
  /** Replays one operation an earlier run drained (after restore()). Throws on one it cannot read. */
  apply(op: unknown): void;
}
