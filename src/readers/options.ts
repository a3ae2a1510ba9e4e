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
  /** URL sources: time allowed for the headers and between body chunks (default 30 s). */
  timeoutMs?: number;
  /** The stream read for the source `-` (default process.stdin). */
  stdin?: Readable;
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
  timeoutMs?: number;
  stdin?: Readable;
}

export const DEFAULT_MAX_CELL_BYTES = 1024 * 1024;

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
    timeoutMs: options.timeoutMs,
    stdin: options.stdin,
  };
}
