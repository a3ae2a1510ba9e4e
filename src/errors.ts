// One error class for the whole client side (the sandbox has its own vocabulary). Callers and tests
// match on `code`, never on message text. Messages read "What went wrong: detail (location)".

export type ErrorCode =
  // configuration and flags
  | 'CONFIG_INVALID'
  | 'CONFIG_MISSING'
  // sources and readers
  | 'SOURCE_NOT_FOUND'
  | 'SOURCE_UNREADABLE'
  | 'SOURCE_HTTP_STATUS'
  | 'SOURCE_TOO_MANY_REDIRECTS'
  | 'SOURCE_TIMEOUT'
  | 'SOURCE_CHANGED'
  | 'SOURCE_EMPTY'
  | 'SOURCE_TOO_LARGE'
  | 'FORMAT_UNKNOWN'
  | 'ENCODING_UNSUPPORTED'
  | 'ENCODING_INVALID'
  | 'CSV_NOT_CSV'
  | 'CSV_HEADER_EMPTY'
  | 'CSV_HEADER_DUPLICATE'
  | 'CSV_NO_DATA'
  | 'CSV_QUOTE_NOT_CLOSED'
  | 'CSV_QUOTE_MALFORMED'
  | 'CSV_ROW_LENGTH'
  | 'CELL_TOO_LARGE'
  | 'XLSX_CORRUPT'
  | 'XLSX_SHEET_NOT_FOUND'
  | 'XLSX_TOO_LARGE'
  | 'JSON_SYNTAX'
  | 'JSON_NOT_RECORDS'
  | 'JSON_TOO_DEEP'
  // API
  | 'API_UNAUTHORIZED'
  | 'API_FORBIDDEN'
  | 'API_NOT_FOUND'
  | 'API_VALIDATION'
  | 'API_CONFLICT'
  | 'API_URL_TOO_LONG'
  | 'API_RATE_LIMITED'
  | 'API_SERVER'
  | 'API_NETWORK'
  | 'API_TIMEOUT'
  | 'API_UNREACHABLE'
  | 'API_STOPPED'
  | 'API_BAD_RESPONSE'
  // schema, mapping, validation
  | 'SCHEMA_UNAVAILABLE'
  | 'SCHEMA_UNKNOWN_ENTITY'
  | 'PROFILE_INVALID'
  | 'MAP_UNKNOWN_COLUMN'
  | 'MAP_MISSING_COLUMN'
  | 'MAP_COERCE'
  | 'VALIDATION'
  | 'LAYOUT_UNKNOWN_FIELD'
  // runs
  | 'MAX_ERRORS'
  | 'LOCKED'
  /** The run's lock was lost mid-run (Redis flushed or restarted, or unreachable past the TTL). */
  | 'LOCK_LOST'
  | 'JOURNAL_INVALID'
  | 'SOURCE_CHANGED'
  | 'ROW_TOO_LARGE'
  /** An output file (report, rejects) stopped taking writes mid-run: a full disk, a lost mount. */
  | 'OUTPUT_FAILED'
  // shared state (--redis)
  | 'REDIS_UNREACHABLE'
  | 'INTERNAL';

export interface ErrorDetails {
  /** Where in a source the problem is, in words a person can find: `line 17, column "Price"`. */
  location?: string;
  cause?: unknown;
  [key: string]: unknown;
}

export class CatalogIoError extends Error {
  readonly code: ErrorCode;
  readonly location: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    const { location, cause, ...rest } = details;
    super(location ? `${message} (${location})` : message, cause === undefined ? undefined : { cause });
    this.name = 'CatalogIoError';
    this.code = code;
    this.location = location;
    this.details = rest;
  }
}

export function isCatalogIoError(err: unknown, code?: ErrorCode): err is CatalogIoError {
  return err instanceof CatalogIoError && (code === undefined || err.code === code);
}
