// The XLSX reader core: exceljs's streaming WorkbookReader over a byte stream, one sheet after the
// other. The header is the given row, or the first row with at least two text cells (a merged
// title above the header is skipped).
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { CatalogIoError } from '../../errors.js';
import { BatchedRows } from '../batched.js';
import { checkHeaders } from '../headers.js';
import { type Cell, type SourceRow, TableRow } from '../types.js';
import { cellText } from './cells.js';
import { type SheetContext, type SheetRow, sheetRowBatches } from './sheet.js';

export interface XlsxSettings {
  source: string;
  /** Names or 1-based indexes (in workbook order); empty = the first sheet. */
  sheets: Array<string | number>;
  /** 1-based header row; detected when absent. */
  headerRow?: number;
  maxCellBytes: number;
}

export interface OpenedWorkbook {
  /** The first selected sheet's header. */
  headers: string[];
  notes: string[];
  rows: AsyncIterable<SourceRow>;
}

type SheetEvent = { kind: 'header'; sheet: string; headers: string[] } | { kind: 'rows'; rows: SourceRow[] };

/**
 * exceljs's streaming workbook reader alone: the package's entry loads the whole library (workbook
 * model, writers, every part's parser), 0.1 s more before the first row. The path is a file of the
 * exceljs version package.json pins exactly.
 */
const WorkbookReader = createRequire(import.meta.url)(
  'exceljs/lib/stream/xlsx/workbook-reader.js',
) as typeof ExcelJS.stream.xlsx.WorkbookReader;

/** What exceljs's streaming workbook reader hands out per sheet: its name and its XML, a chunk at a time. */
interface WorksheetEntry {
  name?: string;
  iterator: AsyncIterable<Buffer | string>;
}

/** The parts of exceljs's streaming workbook reader a sheet's cells refer to (read before the sheet). */
interface WorkbookParts {
  sharedStrings?: unknown[];
  styles: { getStyleModel(id: number): { numFmt?: string } | null };
  properties?: { model?: { date1904?: boolean } };
}

export async function readXlsx(bytes: Readable, settings: XlsxSettings): Promise<OpenedWorkbook> {
  const notes: string[] = [];
  const events = sheetEvents(bytes, settings, notes)[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done || first.value.kind !== 'header') {
    throw new CatalogIoError(
      'CSV_HEADER_EMPTY',
      `No header: the selected sheet of ${settings.source} is empty`,
    );
  }
  const headers = first.value.headers;
  async function* batches(): AsyncGenerator<SourceRow[]> {
    for (;;) {
      const next = await events.next();
      if (next.done) return;
      if (next.value.kind === 'rows') yield next.value.rows;
    }
  }
  return { headers, notes, rows: new BatchedRows(batches()) };
}

async function* sheetEvents(
  bytes: Readable,
  settings: XlsxSettings,
  notes: string[],
): AsyncGenerator<SheetEvent> {
  const wanted = settings.sheets.length > 0 ? settings.sheets : [1];
  const found = new Set<string | number>();
  const names: string[] = [];
  const reader = new WorkbookReader(bytes, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  try {
    let position = 0;
    for await (const sheet of reader) {
      const worksheet = sheet as unknown as WorksheetEntry;
      position++;
      const name = worksheet.name ?? `Sheet${position}`;
      names.push(name);
      const selector = wanted.find((want) => want === position || want === name);
      if (selector === undefined) {
        for await (const _chunk of worksheet.iterator) {
          // not selected: drain it so the zip stream moves on
        }
        continue;
      }
      found.add(selector);
      yield* sheetRows(worksheet, contextOf(reader as unknown as WorkbookParts), name, settings, notes);
    }
  } catch (err) {
    if (err instanceof CatalogIoError) throw err;
    throw new CatalogIoError(
      'XLSX_CORRUPT',
      `Cannot read the workbook ${settings.source}: the file is damaged or not an XLSX workbook (${(err as Error).message})`,
    );
  }
  const missing = wanted.filter((want) => !found.has(want));
  if (missing.length > 0) {
    throw new CatalogIoError(
      'XLSX_SHEET_NOT_FOUND',
      `Sheet not found: ${missing.map((m) => (typeof m === 'number' ? `#${m}` : `"${m}"`)).join(', ')}; the workbook has ${names.map((n) => `"${n}"`).join(', ') || 'no sheets'}`,
    );
  }
}

/** The sheet's shared strings, styles and date system, as exceljs read them from the workbook. */
function contextOf(workbook: WorkbookParts): SheetContext {
  return {
    sharedStrings: workbook.sharedStrings,
    numberFormat: (style) => workbook.styles.getStyleModel(style)?.numFmt,
    date1904: workbook.properties?.model?.date1904 === true,
  };
}

/**
 * The sheet's header, then its rows a chunk at a time (the rows of one chunk of XML): a generator step
 * per row cost more than the row. A failure comes after the rows read before it.
 */
async function* sheetRows(
  worksheet: WorksheetEntry,
  context: SheetContext,
  sheet: string,
  settings: XlsxSettings,
  notes: string[],
): AsyncGenerator<SheetEvent> {
  let headers: string[] | undefined;
  let index = 0;
  for await (const batch of sheetRowBatches(worksheet.iterator, context)) {
    let rows: SourceRow[] = [];
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
    rows = [];
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
  for (let i = 0; i < headers.length; i++) {
    const value = values[i] ?? null;
    if (value !== null) {
      filled++;
      if (
        typeof value === 'string' &&
        value.length * 3 > settings.maxCellBytes &&
        Buffer.byteLength(value) > settings.maxCellBytes
      ) {
        throw new CatalogIoError(
          'CELL_TOO_LARGE',
          `Cell too large: the limit is ${settings.maxCellBytes} bytes`,
          {
            location: `${where}, column "${headers[i]}"`,
          },
        );
      }
    }
    cells[i] = value;
  }
  let extra = 0;
  for (let i = headers.length; i < values.length; i++) if ((values[i] ?? null) !== null) extra++;
  if (filled === 0 && extra === 0) return undefined;
  const out = new TableRow(
    { text: where, source: settings.source, line: row.number, sheet },
    cells,
    headers,
    index,
  );
  if (extra > 0) {
    out.error = {
      code: 'CSV_ROW_LENGTH',
      message: `Cells beyond the header: ${extra} filled cell(s) right of the last named column (${where})`,
    };
  }
  return out;
}

function textCells(values: Cell[]): number {
  let count = 0;
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') count++;
  return count;
}
