// The XLSX reader core: the workbook's zip read through its central directory, its parts (workbook,
// shared strings, styles) first, then the selected sheets one after the other, streamed from the zip.
// The header is the given row, or the first row with at least two text cells (a merged title above the
// header is skipped).

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CatalogIoError } from '../../errors.js';
import { BatchedRows } from '../batched.js';
import { checkHeaders } from '../headers.js';
import { cellTooLarge, type RowError, rowTooLarge } from '../limits.js';
import { type InflateLimits, maxRowBytes } from '../options.js';
import { type Cell, type SourceRow, TableRow } from '../types.js';
import {
  partOfType,
  type Relationships,
  readDateStyles,
  readRelationships,
  readSharedStrings,
  readWorkbook,
  type SheetPart,
} from './parts.js';
import { type SheetContext, type SheetRow, sheetRowBatches } from './sheet.js';
import { openZip, type ZipArchive } from './zip.js';

export interface XlsxSettings {
  source: string;
  /** Names or 1-based indexes (in workbook order); empty = the first sheet. */
  sheets: Array<string | number>;
  /** 1-based header row; detected when absent. */
  headerRow?: number;
  maxCellBytes: number;
  inflate: InflateLimits;
}

/** The workbook: a local file (read in place), or bytes from elsewhere (copied to a temporary file first). */
export interface XlsxInput {
  path?: string;
  chunks: AsyncIterable<Buffer>;
  /** The source's size, when known: progress through a local file is told in its bytes. */
  totalBytes?: number;
}

export interface OpenedWorkbook {
  /** The first selected sheet's header. */
  headers: string[];
  notes: string[];
  rows: AsyncIterable<SourceRow>;
  /**
   * How far into the source the rows are, in the source's bytes (a local file is not read front to
   * back, so the bytes taken from it say nothing); undefined when the bytes taken do.
   */
  bytesRead?: () => number;
}

type SheetEvent = { kind: 'header'; sheet: string; headers: string[] } | { kind: 'rows'; rows: SourceRow[] };

export async function readXlsx(input: XlsxInput, settings: XlsxSettings): Promise<OpenedWorkbook> {
  const notes: string[] = [];
  const progress = { done: 0, total: 0 };
  const events = sheetEvents(input, settings, notes, progress)[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done || first.value.kind !== 'header') {
    throw new CatalogIoError(
      'CSV_HEADER_EMPTY',
      `No header: the selected sheet of ${settings.source} is empty`,
    );
  }
  const headers = first.value.headers;
  async function* batches(): AsyncGenerator<SourceRow[]> {
    try {
      for (;;) {
        const next = await events.next();
        if (next.done) return;
        if (next.value.kind === 'rows') yield next.value.rows;
      }
    } finally {
      // Closing the rows early closes the zip (and removes a temporary copy).
      await events.return?.(undefined);
    }
  }
  const total = input.totalBytes;
  return {
    headers,
    notes,
    rows: new BatchedRows(batches()),
    ...(input.path !== undefined &&
      total !== undefined && {
        bytesRead: () =>
          progress.total > 0 ? Math.min(total, Math.round((total * progress.done) / progress.total)) : 0,
      }),
  };
}

async function* sheetEvents(
  input: XlsxInput,
  settings: XlsxSettings,
  notes: string[],
  progress: { done: number; total: number },
): AsyncGenerator<SheetEvent> {
  let copy: string | undefined;
  let zip: ZipArchive | undefined;
  try {
    let file = input.path;
    if (file === undefined) {
      copy = await mkdtemp(join(tmpdir(), 'catalog-io-xlsx-')).catch((err: Error) => {
        throw cannotCopy(settings.source, err);
      });
      file = join(copy, 'workbook.xlsx');
      await pipeline(input.chunks, createWriteStream(file)).catch((err: Error) => {
        // A failure of the source itself (a URL that stalls) is already a coded error.
        throw err instanceof CatalogIoError ? err : cannotCopy(settings.source, err);
      });
    }
    zip = await openZip(file, settings.inflate, settings.source).catch((err: Error) => {
      throw corrupt(settings.source, err);
    });
    const { sheets, context } = await readParts(zip, settings.source, maxRowBytes(settings.maxCellBytes));
    const selected = selectSheets(sheets, settings.sheets);
    // Never a silent first sheet of many: the others are named.
    const skipped = sheets.filter((sheet) => !selected.includes(sheet));
    if (settings.sheets.length === 0 && skipped.length > 0) {
      notes.push(
        `only sheet "${selected[0]?.name}" was read; the workbook also has ${skipped.map((s) => `"${s.name}"`).join(', ')}: name one with --sheet`,
      );
    }
    // A workbook too large to read whole stops before its first row, not after hours of rows.
    zip.checkTotal(selected.map((sheet) => sheet.path));
    progress.total = selected.reduce((sum, sheet) => sum + zip!.sizeOf(sheet.path), 0);
    for (const sheet of selected) {
      const bytes = await zip.open(sheet.path).catch((err: Error) => {
        throw err instanceof CatalogIoError ? err : corrupt(settings.source, err);
      });
      // Where a damage was met: after the last row read whole.
      let after: string | undefined;
      try {
        for await (const event of sheetRows(
          counting(bytes, progress),
          context,
          sheet.name,
          settings,
          notes,
        )) {
          if (event.kind === 'rows') after = event.rows.at(-1)?.location.text ?? after;
          yield event;
        }
      } catch (err) {
        if (err instanceof CatalogIoError) throw err;
        const where = after ? `after ${after}` : `sheet ${sheet.name}`;
        throw corrupt(settings.source, err as Error, where);
      } finally {
        bytes.destroy();
      }
    }
  } finally {
    zip?.close();
    if (copy) await rm(copy, { recursive: true, force: true });
  }
}

/** The sheet's bytes as they pass, added to `progress.done` (decompressed bytes of the selected sheets). */
async function* counting(bytes: AsyncIterable<Buffer>, progress: { done: number }): AsyncGenerator<Buffer> {
  for await (const chunk of bytes) {
    progress.done += chunk.length;
    yield chunk;
  }
}

function cannotCopy(source: string, err: Error): CatalogIoError {
  const code = (err as NodeJS.ErrnoException).code;
  return new CatalogIoError(
    'SOURCE_UNREADABLE',
    `Cannot copy the workbook ${source} to a temporary file (${code ?? err.message}): a workbook that is not a local file is read from a copy in ${tmpdir()}`,
  );
}

function corrupt(source: string, err: Error, location?: string): CatalogIoError {
  return new CatalogIoError(
    'XLSX_CORRUPT',
    `Cannot read the workbook ${source}: the file is damaged or not an XLSX workbook (${err.message})`,
    location ? { location } : {},
  );
}

/** The workbook's sheets and what their cells refer to, read from its parts. */
async function readParts(
  zip: ZipArchive,
  source: string,
  maxRow = Number.POSITIVE_INFINITY,
): Promise<{ sheets: SheetPart[]; context: SheetContext }> {
  // A part the workbook may leave out is read when it is there, else `absent` stands for it.
  const part = async <T>(
    path: string | undefined,
    read: (bytes: AsyncIterable<Buffer>) => Promise<T>,
    absent: T,
  ) => {
    if (path === undefined || !zip.has(path)) return absent;
    try {
      // Every part but the sheets is held in memory while the rows are read.
      return await read(await zip.open(path, { held: true }));
    } catch (err) {
      if (err instanceof CatalogIoError) throw err;
      throw corrupt(source, new Error(`${path}: ${(err as Error).message}`));
    }
  };
  const none: Relationships = new Map();
  const root = await part('_rels/.rels', (bytes) => readRelationships(bytes, '_rels/.rels'), none);
  const workbookPath = partOfType(root, 'officeDocument') ?? 'xl/workbook.xml';
  if (!zip.has(workbookPath)) throw corrupt(source, new Error(`no workbook part (${workbookPath})`));
  const relsPath = posix.join(posix.dirname(workbookPath), '_rels', `${posix.basename(workbookPath)}.rels`);
  const rels = await part(relsPath, (bytes) => readRelationships(bytes, relsPath), none);
  const workbook = await part(workbookPath, (bytes) => readWorkbook(bytes, rels), {
    sheets: [],
    date1904: false,
  });
  const sharedStrings = await part(workbook.sharedStrings, readSharedStrings, undefined);
  const isDateStyle = await part(workbook.styles, readDateStyles, () => false);
  return {
    sheets: workbook.sheets,
    context: { sharedStrings, isDateStyle, date1904: workbook.date1904, maxRowBytes: maxRow },
  };
}

/** The sheets asked for (by name or 1-based position), in workbook order; all found or an error. */
function selectSheets(sheets: SheetPart[], wanted: Array<string | number>): SheetPart[] {
  const asked = wanted.length > 0 ? wanted : [1];
  const names = (want: string | number) => (sheet: SheetPart, i: number) =>
    want === i + 1 || want === sheet.name;
  const missing = asked.filter((want) => !sheets.some(names(want)));
  if (missing.length > 0) {
    throw new CatalogIoError(
      'XLSX_SHEET_NOT_FOUND',
      `Sheet not found: ${missing.map((m) => (typeof m === 'number' ? `#${m}` : `"${m}"`)).join(', ')}; the workbook has ${sheets.map((n) => `"${n.name}"`).join(', ') || 'no sheets'}`,
    );
  }
  return sheets.filter((sheet, i) => asked.some((want) => names(want)(sheet, i)));
}

/**
 * The sheet's header, then its rows a chunk at a time (the rows of one chunk of XML): a generator step
 * per row cost more than the row. A failure comes after the rows read before it.
 */
async function* sheetRows(
  xml: AsyncIterable<Buffer>,
  context: SheetContext,
  sheet: string,
  settings: XlsxSettings,
  notes: string[],
): AsyncGenerator<SheetEvent> {
  let headers: string[] | undefined;
  let index = 0;
  for await (const batch of sheetRowBatches(xml, context)) {
    const rows: SourceRow[] = [];
    try {
      for (const row of batch) {
        if (headers) {
          const out = dataRow(row, sheet, headers, settings, index + 1);
          if (out) {
            index++;
            rows.push(out);
          }
          continue;
        }
        headers = headerOf(row, sheet, settings, notes);
        if (headers) yield { kind: 'header', sheet, headers };
      }
    } catch (err) {
      if (rows.length > 0) yield { kind: 'rows', rows };
      throw err;
    }
    if (rows.length > 0) yield { kind: 'rows', rows };
  }
  if (!headers) {
    throw new CatalogIoError('CSV_HEADER_EMPTY', `No header: sheet ${sheet} has no header row`, {
      location: settings.headerRow ? `sheet ${sheet} row ${settings.headerRow}` : `sheet ${sheet}`,
    });
  }
}

/** The header's names when `row` is the header row (the given one, or the first with two texts). */
function headerOf(
  row: SheetRow,
  sheet: string,
  settings: XlsxSettings,
  notes: string[],
): string[] | undefined {
  const texts = Array.from(row.values, (cell) => cell ?? null);
  const isHeader =
    settings.headerRow !== undefined ? row.number === settings.headerRow : textCells(texts) >= 2;
  if (!isHeader) return undefined;
  const where = `sheet ${sheet} row ${row.number}`;
  if (row.tooLarge) {
    throw new CatalogIoError(
      'ROW_TOO_LARGE',
      `Header too large: its names hold ${row.tooLarge.bytes} bytes, more than a row may (raise --max-cell if the data is genuine)`,
      { location: where },
    );
  }
  const headers = checkHeaders(texts.map(cellText), where);
  if (settings.headerRow === undefined && row.number > 1) notes.push(`header found on ${where}`);
  return headers;
}

/** One data row (undefined for an empty one), `index` being its place among the sheet's data rows. */
function dataRow(
  row: SheetRow,
  sheet: string,
  headers: string[],
  settings: XlsxSettings,
  index: number,
): SourceRow | undefined {
  const values = row.values;
  const where = `sheet ${sheet} row ${row.number}`;
  // One pass over the cells, straight into the row (this runs once per row).
  const cells = new Array<Cell>(headers.length);
  let filled = 0;
  let error: RowError | undefined;
  for (let i = 0; i < headers.length; i++) {
    const value = values[i] ?? null;
    if (value !== null) {
      filled++;
      if (
        typeof value === 'string' &&
        value.length * 3 > settings.maxCellBytes &&
        Buffer.byteLength(value) > settings.maxCellBytes
      ) {
        error ??= cellTooLarge(
          Buffer.byteLength(value),
          settings.maxCellBytes,
          `${where}, column "${headers[i]}"`,
        );
        cells[i] = null;
        continue;
      }
    }
    cells[i] = value;
  }
  let extra = 0;
  for (let i = headers.length; i < values.length; i++) if ((values[i] ?? null) !== null) extra++;
  if (filled === 0 && extra === 0 && !row.tooLarge) return undefined;
  const out = new TableRow(
    { text: where, source: settings.source, line: row.number, sheet },
    cells,
    headers,
    index,
  );
  if (row.tooLarge) {
    const { bytes, column } = row.tooLarge;
    error = rowTooLarge(
      bytes,
      maxRowBytes(settings.maxCellBytes),
      where,
      headers[column] ?? `#${column + 1}`,
    );
  }
  if (error) out.error = error;
  else if (extra > 0) {
    out.error = {
      code: 'CSV_ROW_LENGTH',
      message: `Cells beyond the header: ${extra} filled cell(s) right of the last named column (${where})`,
    };
  }
  return out;
}

/** Text of a cell for a header name (numbers become their digits). */
function cellText(cell: Cell): string {
  if (cell === null) return '';
  return Array.isArray(cell) ? cell.join(',') : String(cell).trim();
}

function textCells(values: Cell[]): number {
  let count = 0;
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') count++;
  return count;
}

/** The names of a local workbook's sheets, in tab order (only the workbook's small parts are read). */
export async function workbookSheetNames(
  file: string,
  source: string,
  inflate: InflateLimits,
): Promise<string[]> {
  const zip = await openZip(file, inflate, source).catch((err: Error) => {
    throw corrupt(source, err);
  });
  try {
    const { sheets } = await readParts(zip, source);
    return sheets.map((sheet) => sheet.name);
  } finally {
    zip.close();
  }
}
