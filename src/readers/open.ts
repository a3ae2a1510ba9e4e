// openSource(): the one entry point. It turns a path, `-` or a URL into bytes (sources/), detects
// gzip, format and encoding, and hands text or bytes to the format's reader core.
import { CatalogIoError } from '../errors.js';
import { BatchedRows } from './batched.js';
import { readCsv } from './csv/csv.js';
import { type DecodeStatus, decode, detectEncoding, looksBinary } from './encoding.js';
import { detectFormat, type Format, isZip } from './format.js';
import { readJson } from './json/json.js';
import { readNdjson } from './json/ndjson.js';
import { inflateLimits, type ReaderOptions, type ResolvedOptions, resolveOptions } from './options.js';
import type { ByteSource } from './sources/byte-source.js';
import { openFile, openStdin, readableSize } from './sources/file.js';
import { gunzip, HEAD_BYTES, isGzip, peek } from './sources/peek.js';
import { refuseUrlCredentials } from './sources/redact.js';
import type { BufferedRows, SourceRow } from './types.js';

export interface OpenedSource {
  format: Format;
  /** Text encoding used (CSV, JSON, NDJSON); undefined for XLSX. */
  encoding?: string;
  /** CSV only. */
  delimiter?: string;
  /** CSV only: the header record's physical line and whether cells are trimmed (for reading parts of the file). */
  csv?: { headerLine: number; trim: boolean };
  /**
   * Column names. CSV/XLSX: the header row (XLSX with several sheets: the first sheet's).
   * JSON/NDJSON: the union of the keys seen so far; it grows while rows are read.
   */
  headers: string[];
  /** The data rows, pulled one at a time; row-level problems are in `row.error`. */
  rows: AsyncIterable<SourceRow>;
  /** Bytes taken from the source so far (compressed size for `.gz`): for progress against totalBytes. */
  bytesRead(): number;
  /**
   * Rows the reader has made from the bytes read so far, handed out or not (readers that make rows a
   * chunk at a time). Rows per byte from these, not from the rows handed out, estimate the total: the
   * bytes read run a chunk ahead of the rows a slow consumer has taken.
   */
  rowsMade?(): number;
  totalBytes?: number;
  /** What was detected or assumed, for people: `encoding windows-1252 detected`. */
  notes: string[];
  /** The source as it may be shown (URL credentials stripped). */
  source: string;
  close(): Promise<void>;
}

/** Opens a source and reads its header (and first row): file-level problems throw here, coded. */
export async function openSource(spec: string, options: ReaderOptions = {}): Promise<OpenedSource> {
  const settings = resolveOptions(options);
  const bytes = tapped(await openBytes(spec, settings), settings.tap);
  try {
    return await openFromBytes(bytes, settings);
  } catch (err) {
    await bytes.close();
    throw err;
  }
}

/** The source's bytes as they are (no decompression, no decoding): a resume spools a stream with them. */
export async function openSourceBytes(spec: string, options: ReaderOptions = {}): Promise<ByteSource> {
  return openBytes(spec, resolveOptions(options));
}

function tapped(bytes: ByteSource, tap: ((chunk: Buffer) => void) | undefined): ByteSource {
  if (!tap) return bytes;
  const inner = bytes.chunks;
  async function* pass() {
    for await (const chunk of inner) {
      tap!(chunk);
      yield chunk;
    }
  }
  return { ...bytes, chunks: pass(), bytesRead: () => bytes.bytesRead(), close: () => bytes.close() };
}

const isUrl = (spec: string) => /^https?:\/\//i.test(spec);
/** sftp://, ftp://, ftps:// (readers/remote/). */
const isRemote = (spec: string) => /^(s?ftp|ftps):\/\//i.test(spec);

/**
 * Fails now, with the same coded error openSource() would give, when a local file cannot be read, so a
 * command can check its source before it connects to anything. Standard input and URLs are checked when
 * opened.
 */
export async function checkSource(spec: string): Promise<void> {
  if (isUrl(spec)) refuseUrlCredentials(spec);
  else if (spec !== '-' && !isRemote(spec)) await readableSize(spec);
}

async function openBytes(spec: string, settings: ResolvedOptions): Promise<ByteSource> {
  if (spec === '-') return openStdin(settings.stdin);
  if (isUrl(spec)) {
    refuseUrlCredentials(spec);
    // Loaded when needed, like the XLSX reader below: a local CSV or JSON read does not pay for the HTTP client.
    const { openUrl } = await import('./sources/url.js');
    return openUrl(spec, {
      ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
      ...(settings.httpHeaders && { headers: settings.httpHeaders }),
    });
  }
  if (isRemote(spec)) {
    const { openRemote } = await import('./remote/remote.js');
    return openRemote(spec, { ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }) });
  }
  return openFile(spec);
}

async function openFromBytes(bytes: ByteSource, settings: ResolvedOptions): Promise<OpenedSource> {
  const notes: string[] = [];
  const name = bytes.name;
  let { head, chunks } = await peek(bytes.chunks);
  const gzipped = isGzip(head);
  if (gzipped) {
    ({ head, chunks } = await peek(gunzip(chunks, name, inflateLimits(settings.maxInflateBytes))));
    notes.push('gzip decompressed');
  }
  if (head.length === 0) throw new CatalogIoError('SOURCE_EMPTY', `Empty file: ${name} holds no data`);
  const detected = detectFormat(bytes.fileName, head, settings.format);
  const format = detected.format;
  notes.push(...detected.notes);
  const base = { format, notes, bytesRead: bytes.bytesRead, totalBytes: bytes.totalBytes, source: name };

  if (format === 'xlsx') {
    if (!isZip(head)) {
      throw new CatalogIoError('XLSX_CORRUPT', `Not an XLSX workbook: ${name} is not a zip archive`);
    }
    // The XLSX reader is loaded only for workbooks.
    const { readXlsx } = await import('./xlsx/xlsx.js');
    // A local workbook is read in place (its parts in any order); other bytes are copied to a file first.
    const table = await readXlsx(
      bytes.path !== undefined && !gzipped
        ? { path: bytes.path, chunks, totalBytes: bytes.totalBytes }
        : { chunks },
      {
        source: name,
        sheets: settings.sheets,
        headerRow: settings.headerRow,
        maxCellBytes: settings.maxCellBytes,
        inflate: inflateLimits(settings.maxInflateBytes),
      },
    );
    notes.push(...table.notes);
    return finish(
      {
        ...base,
        ...(table.bytesRead && { bytesRead: table.bytesRead }),
        headers: table.headers,
        rows: table.rows,
      },
      bytes,
      settings,
    );
  }

  if (isZip(head)) {
    throw new CatalogIoError(
      'CSV_NOT_CSV',
      `Not ${format.toUpperCase()}: ${name} is a zip archive (an XLSX workbook?); use --format xlsx`,
    );
  }
  // UTF-16 text without a BOM is full of zero bytes: with the encoding named, it is text.
  const wide = settings.encoding !== undefined && /^(utf-?16|utf-?32|ucs-?2)/i.test(settings.encoding);
  if (!wide && looksBinary(head)) {
    throw new CatalogIoError(
      format === 'csv' ? 'CSV_NOT_CSV' : 'ENCODING_UNSUPPORTED',
      `Not a text file: ${name} holds binary data, expected ${format.toUpperCase()} text`,
    );
  }
  const { encoding, notes: encodingNotes } = detectEncoding(
    head,
    head.length < HEAD_BYTES,
    settings.encoding,
    name,
  );
  notes.push(...encodingNotes);
  // Invalid UTF-8 is counted by the decoder and made a row error by the reader that meets the row.
  const decoded: DecodeStatus = { invalidSequences: 0 };
  const text = decode(chunks, encoding, decoded);

  if (format === 'csv') {
    const table = await readCsv(text, {
      source: name,
      delimiter: settings.delimiter,
      headerRow: settings.headerRow ?? 1,
      trim: settings.trim,
      maxCellBytes: settings.maxCellBytes,
      decoded,
      notes,
    });
    return finish(
      {
        ...base,
        encoding,
        delimiter: table.delimiter,
        headers: table.headers,
        rows: table.rows,
        csv: { headerLine: table.headerLine ?? 1, trim: table.trim ?? false },
      },
      bytes,
      settings,
    );
  }

  const jsonSettings = {
    source: name,
    maxCellBytes: settings.maxCellBytes,
    maxJsonDepth: settings.maxJsonDepth,
    decoded,
  };
  if (format === 'ndjson') {
    const table = readNdjson(text, jsonSettings);
    return finish({ ...base, encoding, headers: table.headers, rows: table.rows }, bytes, settings);
  }
  const table = readJson(text, { ...jsonSettings, jsonPath: settings.jsonPath, notes });
  return finish({ ...base, encoding, headers: table.headers, rows: table.rows }, bytes, settings);
}

/**
 * Reads the first row now, so that a file with no data (or broken at its start) fails at open (unless
 * `allowNoData`: then it opens with no rows).
 */
async function finish(
  opened: Omit<OpenedSource, 'close'>,
  bytes: ByteSource,
  settings: ResolvedOptions,
): Promise<OpenedSource> {
  const iterator = opened.rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done && !settings.allowNoData) {
    const what =
      opened.format === 'json' || opened.format === 'ndjson'
        ? 'holds no records'
        : 'has a header but no data rows';
    // A workbook's sheet is named: the file has others, which may hold rows.
    const one = opened.format === 'xlsx' && settings.sheets.length === 1 ? settings.sheets[0] : undefined;
    const where =
      one === undefined
        ? opened.source
        : `sheet ${typeof one === 'number' ? one : `"${one}"`} of ${opened.source}`;
    throw new CatalogIoError('CSV_NO_DATA', `No data: ${where} ${what}`);
  }
  // A plain iterator rather than another generator layer: one less await per row.
  let pending: IteratorResult<SourceRow> | undefined = first;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await iterator.return?.();
    await bytes.close();
  };
  const held = 'takeBuffered' in iterator ? (iterator as BufferedRows) : undefined;
  const pull = async (): Promise<IteratorResult<SourceRow>> => {
    if (closed) return { done: true, value: undefined };
    try {
      const next = await iterator.next();
      if (next.done) await close();
      return next;
    } catch (err) {
      await close();
      throw err;
    }
  };
  const rows: AsyncIterableIterator<SourceRow> & BufferedRows = {
    [Symbol.asyncIterator]() {
      return this;
    },
    takeBuffered() {
      if (pending) {
        const result = pending;
        pending = undefined;
        return result.done ? undefined : result.value;
      }
      return closed ? undefined : held?.takeBuffered();
    },
    next() {
      if (pending) {
        const result = pending;
        pending = undefined;
        return Promise.resolve(result);
      }
      // Rows the core already holds need no await of ours.
      const value = closed ? undefined : held?.takeBuffered();
      return value ? Promise.resolve({ done: false, value }) : pull();
    },
    async return() {
      await close();
      return { done: true, value: undefined };
    },
  };
  const made = opened.rows instanceof BatchedRows ? opened.rows : undefined;
  return { ...opened, rows, close, ...(made && { rowsMade: () => made.made }) };
}

/**
 * The sheets of a workbook that is read whole (import and validate take each sheet on its entity): a
 * local workbook of several sheets when none is named. Undefined for anything else. The caller also
 * leaves it alone when an entity is named.
 */
export async function sheetsReadWhole(
  spec: string,
  options: ReaderOptions = {},
): Promise<string[] | undefined> {
  if (options.sheet !== undefined) return undefined;
  const sheets = await workbookSheets(spec, options);
  return sheets !== undefined && sheets.length > 1 ? sheets : undefined;
}

/**
 * The sheets of a local XLSX workbook, in tab order; undefined for any other source (another format,
 * standard input, a URL), which has no sheets to choose from.
 */
export async function workbookSheets(
  spec: string,
  options: ReaderOptions = {},
): Promise<string[] | undefined> {
  if (spec === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) return undefined;
  const format = options.format ?? (/\.xls[xm]$/i.test(spec) ? 'xlsx' : undefined);
  if (format !== 'xlsx') return undefined;
  const settings = resolveOptions(options);
  const { workbookSheetNames } = await import('./xlsx/xlsx.js');
  return workbookSheetNames(spec, spec, inflateLimits(settings.maxInflateBytes));
}
