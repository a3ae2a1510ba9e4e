// The XLSX reader core: exceljs's streaming WorkbookReader over a byte stream, one sheet after the
// other. The header is the given row, or the first row with at least two text cells (a merged
// title above the header is skipped).
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { CatalogIoError } from '../../errors.js';
import { checkHeaders } from '../headers.js';
import { type Cell, type SourceRow, TableRow } from '../types.js';
import { cellText, toCell } from './cells.js';

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

type SheetEvent = { kind: 'header'; sheet: string; headers: string[] } | { kind: 'row'; row: SourceRow };

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
  async function* rows(): AsyncGenerator<SourceRow> {
    for (;;) {
      const next = await events.next();
      if (next.done) return;
      if (next.value.kind === 'row') yield next.value.row;
    }
  }
  return { headers, notes, rows: rows() };
}

async function* sheetEvents(
  bytes: Readable,
  settings: XlsxSettings,
  notes: string[],
): AsyncGenerator<SheetEvent> {
  const wanted = settings.sheets.length > 0 ? settings.sheets : [1];
  const found = new Set<string | number>();
  const names: string[] = [];
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(bytes, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  try {
    let position = 0;
    for await (const worksheet of reader) {
      position++;
      const name = (worksheet as unknown as { name: string }).name ?? `Sheet${position}`;
      names.push(name);
      const selector = wanted.find((want) => want === position || want === name);
      if (selector === undefined) {
        for await (const _row of worksheet) {
          // not selected: drain it so the zip stream moves on
        }
        continue;
      }
      found.add(selector);
      yield* sheetRows(worksheet, name, settings, notes);
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

interface RowLike {
  number: number;
  values: unknown;
}

async function* sheetRows(
  worksheet: AsyncIterable<unknown>,
  sheet: string,
  settings: XlsxSettings,
  notes: string[],
): AsyncGenerator<SheetEvent> {
  let headers: string[] | undefined;
  let index = 0;
  for await (const item of worksheet) {
    const row = item as RowLike;
    // `values` is 1-based: index 0 is always empty.
    const values = row.values as unknown[];
    const where = `sheet ${sheet} row ${row.number}`;
    if (!headers) {
      const texts = values.slice(1).map(toCell);
      const isHeader =
        settings.headerRow !== undefined ? row.number === settings.headerRow : textCells(texts) >= 2;
      if (!isHeader) continue;
      headers = checkHeaders(texts.map(cellText), where);
      if (settings.headerRow === undefined && row.number > 1) notes.push(`header found on ${where}`);
      yield { kind: 'header', sheet, headers };
      continue;
    }
    // One pass over the cells, straight into the row (this runs once per row).
    const cells = new Array<Cell>(headers.length);
    let filled = 0;
    for (let i = 0; i < headers.length; i++) {
      const value = toCell(values[i + 1]);
      if (value !== null) {
        filled++;
        if (typeof value === 'string' && value.length * 3 > settings.maxCellBytes) {
          if (Buffer.byteLength(value) > settings.maxCellBytes) {
            throw new CatalogIoError(
              'CELL_TOO_LARGE',
              `Cell too large: the limit is ${settings.maxCellBytes} bytes`,
              {
                location: `${where}, column "${headers[i]}"`,
              },
            );
          }
        }
      }
      cells[i] = value;
    }
    let extra = 0;
    for (let i = headers.length + 1; i < values.length; i++) if (toCell(values[i]) !== null) extra++;
    if (filled === 0 && extra === 0) continue;
    index++;
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
    yield { kind: 'row', row: out };
  }
  if (!headers) {
    throw new CatalogIoError('CSV_HEADER_EMPTY', `No header: sheet ${sheet} has no header row`, {
      location: settings.headerRow ? `sheet ${sheet} row ${settings.headerRow}` : `sheet ${sheet}`,
    });
  }
}

function textCells(values: Cell[]): number {
  let count = 0;
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') count++;
  return count;
}
