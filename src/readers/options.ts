// Reader options, checked once at the edge: inner code trusts what comes out of resolveOptions().
import type { Readable } from 'node:stream';
import { CatalogIoError } from '../errors.js';
import { type Format, parseFormat } from './format.js';

export interface ReaderOptions {
  /** `csv | xlsx | json | ndjson`; detected from the extension, then the content, when absent. */
  format?: string;
  /** `utf-8`, `utf-16le`, `windows-1252`, ... (any iconv-lite name); detected when absent. */
  encoding?: string;
  /** CSV delimiter (one character, `\t` for TAB); guessed among `, ; TAB |` when absent. */
  delimiter?: string;
  /** 1-based line (CSV) or row (XLSX) of the header; XLSX finds it when absent, CSV uses line 1. */
  headerRow?: number;
  /** XLSX sheet(s) by name or 1-based index; default the first. Several sheets are read one after the other. */
  sheet?: string | number | Array<string | number>;
  /** JSON: dotted path to the array of records inside an object (`items`, `data.products`). */
  jsonPath?: string;
  /** CSV: trim spaces around cells; when absent, on if most header names are space-padded. */
  trim?: boolean;
  /** Largest cell accepted, in bytes (default 1 MiB); a larger one is a CELL_TOO_LARGE error. */
  maxCellBytes?: number;
  /**
   * Most bytes a compressed source may inflate to (default 4 GiB): an XLSX workbook's parts together,
   * or a `.gz` source. See `inflateLimits()` for the per-part and ratio rules derived from it.
   */
  maxInflateBytes?: number;
  /** JSON/NDJSON: deepest nesting of arrays and objects in a record (default 64). */
  maxJsonDepth?: number;
  /**
   * URL sources: time allowed for the headers, and for each 1 KiB of the body while the reader waits
   * for it (default 30 s), so a server that stalls or trickles is stopped.
   */
  timeoutMs?: number;
  /**
   * URL sources: request headers (`{ authorization: 'Basic ...' }`), the way to send credentials: a
   * URL with `user:password@` is refused. Never shown in messages; dropped on a redirect to another origin.
   */
  httpHeaders?: Record<string, string>;
  /** The stream read for the source `-` (default process.stdin). */
  stdin?: Readable;
  /** Sees every chunk of the source's bytes as read (before decompression): a resume's checkpoints. */
  tap?: (chunk: Buffer) => void;
  /**
   * A header with no data rows (an empty JSON array) opens with no rows instead of failing
   * `CSV_NO_DATA`: for a workbook read whole, where a header-only sheet is an entity with nothing in it.
   */
  allowNoData?: boolean;
}

export interface ResolvedOptions {
  format?: Format;
  encoding?: string;
  delimiter?: string;
  headerRow?: number;
  sheets: Array<string | number>;
  jsonPath?: string;
  trim?: boolean;
  maxCellBytes: number;
  maxInflateBytes: number;
  maxJsonDepth: number;
  timeoutMs?: number;
  httpHeaders?: Record<string, string>;
  stdin?: Readable;
  tap?: (chunk: Buffer) => void;
  allowNoData: boolean;
}

export const DEFAULT_MAX_CELL_BYTES = 1024 * 1024;
/** Generous for a 1M-row sheet (its XML is typically 0.2 to 1 GB) or a large gzipped feed. */
export const DEFAULT_MAX_INFLATE_BYTES = 4 * 1024 ** 3;
export const DEFAULT_MAX_JSON_DEPTH = 64;
/**
 * The most one row may hold once expanded, in bytes: its cells' text together (an XLSX shared string
 * counted in every cell that uses it, a JSON key with a small allowance each), 4 × `maxCellBytes`
 * (at least 1 MiB). A CSV record or an NDJSON line longer than this is skipped to its end. The
 * report and rejects lines of a row are bounded by it too (and by MAX_REPORT_FIELD in writers/).
 */
export function maxRowBytes(maxCellBytes: number): number {
  return Math.max(maxCellBytes * 4, 1 << 20);
}

/** The most `maxJsonDepth` may be raised to: flattening recurses per level, safely to a few thousand. */
export const MAX_JSON_DEPTH = 1000;

export function resolveOptions(options: ReaderOptions): ResolvedOptions {
  const invalid = (message: string) => new CatalogIoError('CONFIG_INVALID', message);
  let delimiter = options.delimiter;
  if (delimiter !== undefined) {
    if (delimiter === '\\t' || delimiter.toLowerCase() === 'tab') delimiter = '\t';
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
      throw invalid(`Invalid delimiter "${options.delimiter}": expected one character such as , ; | or \\t`);
    }
  }
  const positive = (value: number | undefined, name: string) => {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw invalid(`Invalid ${name} ${value}: expected a whole number from 1`);
    }
  };
  positive(options.headerRow, 'header row');
  positive(options.maxCellBytes, 'maxCellBytes');
  positive(options.timeoutMs, 'timeout');
  positive(options.maxInflateBytes, 'maxInflateBytes');
  positive(options.maxJsonDepth, 'maxJsonDepth');
  if ((options.maxJsonDepth ?? 0) > MAX_JSON_DEPTH) {
    throw invalid(
      `Invalid maxJsonDepth ${options.maxJsonDepth}: at most ${MAX_JSON_DEPTH} (a record is flattened by recursion, which deeper nesting would overflow)`,
    );
  }
  for (const [name, value] of Object.entries(options.httpHeaders ?? {})) {
    // The value is never quoted: it usually holds a secret.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n]/.test(value)) {
      throw invalid(`Invalid source header "${name}": expected "Name: value" on one line`);
    }
  }
  const sheets =
    options.sheet === undefined ? [] : Array.isArray(options.sheet) ? options.sheet : [options.sheet];
  for (const sheet of sheets) if (typeof sheet === 'number') positive(sheet, 'sheet index');
  return {
    format: options.format ? parseFormat(options.format) : undefined,
    encoding: options.encoding,
    delimiter,
    headerRow: options.headerRow,
    sheets,
    jsonPath: options.jsonPath?.trim() || undefined,
    trim: options.trim,
    maxCellBytes: options.maxCellBytes ?? DEFAULT_MAX_CELL_BYTES,
    maxInflateBytes: options.maxInflateBytes ?? DEFAULT_MAX_INFLATE_BYTES,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    timeoutMs: options.timeoutMs,
    ...(options.httpHeaders && { httpHeaders: options.httpHeaders }),
    stdin: options.stdin,
    ...(options.tap && { tap: options.tap }),
    allowNoData: options.allowNoData === true,
  };
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * A size as people write it: `4GB`, `500 MB`, `64KiB`, `1048576` (units are powers of 1024). For the
 * size flags (`--max-inflate`, `--max-cell`); `what` names the flag in the error.
 */
export function parseSize(text: string, what: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  const bytes = match ? Math.round(Number(match[1]) * UNITS[match[2]!.toLowerCase()]!) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `Invalid ${what} "${text}": expected a size such as 500MB, 4GB or a number of bytes`,
    );
  }
  return bytes;
}

/** What a compressed source may inflate to, derived from `maxInflateBytes`. */
export interface InflateLimits {
  /** All the parts read from one workbook together, or one `.gz` source. */
  total: number;
  /** One part held in memory while the rows are read (shared strings, styles, the workbook itself). */
  heldPart: number;
  /** Inflated bytes per compressed byte beyond which a large part is a bomb, not data. */
  ratio: number;
  /** The ratio is judged only past this size: small parts of repeated markup compress very well. */
  ratioFloor: number;
}

export function inflateLimits(maxInflateBytes: number): InflateLimits {
  return {
    total: maxInflateBytes,
    heldPart: Math.ceil(maxInflateBytes / 4),
    // Real sheets and feeds inflate 5 to 15 times (a sheet of 100,000 identical rows: 13); a zip bomb
    // about 1,000. One knob for people: raising the limit raises the ratio in proportion.
    ratio: Math.round(100 * Math.max(1, maxInflateBytes / DEFAULT_MAX_INFLATE_BYTES)),
    ratioFloor: 64 * 1024 ** 2,
  };
}

/** `4.0 GB`, `5.5 MB`, `812 bytes`: sizes in messages (powers of 1024, as `parseSize` reads them). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
