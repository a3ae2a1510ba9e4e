// One worksheet's XML (`xl/worksheets/sheetN.xml`) read into rows of cells. exceljs's own streaming
// sheet reader built a Row and a Cell object (with its style) per cell that the reader then threw
// away, which cost a third of the reading time.
import { decodeXlsxText } from '../../writers/xlsx-text.js';
import type { Cell } from '../types.js';
import { xmlChunks } from './xml.js';

/** One `<row>`: its 1-based number in the sheet and its cells by 0-based column (holes are empty cells). */
export interface SheetRow {
  number: number;
  values: Cell[];
  /** The row's cells held more than `maxRowBytes` once expanded: those from `column` (0-based) on are left out. */
  tooLarge?: { bytes: number; column: number };
}

/** What a sheet's cells refer to, read from the workbook's other parts. */
export interface SheetContext {
  /** Shared strings in order. */
  sharedStrings: readonly string[] | undefined;
  /** Whether a cell style (`s`) shows a date or a time: its numbers are then dates. */
  isDateStyle(style: number): boolean;
  /** Dates counted from 1904 (old Mac workbooks) instead of 1900. */
  date1904: boolean;
  /**
   * The most one row's cells may hold together (a shared string counts in every cell that uses it: a
   * 40 KB workbook can name a 1 MB string from 2,000 cells); the cells past it are not kept.
   */
  maxRowBytes: number;
}

/** The sheet's rows, those of one chunk of XML at a time (no empty batch); a damage after the rows before it. */
export async function* sheetRowBatches(
  chunks: AsyncIterable<Buffer | string>,
  context: SheetContext,
): AsyncGenerator<SheetRow[]> {
  const sheet = new SheetCells(context);
  for await (const _ of xmlChunks(chunks, sheet)) {
    const rows = sheet.take();
    if (rows.length > 0) yield rows;
  }
}

/** The handlers that turn a sheet's elements into rows of cells. */
class SheetCells {
  private rows: SheetRow[] = [];
  private inSheetData = false;
  private row: SheetRow | undefined;
  /** Characters of the row's cells so far (a string's length: a UTF-16 unit per byte at least). */
  private rowBytes = 0;
  private lastRow = 0;
  private column = 0;
  private type = '';
  private style = 0;
  private hasValue = false;
  private inInline = false;
  private inPhonetic = false;
  /** The text being read goes to the cell's value: inside `<v>`, or inside `<is>`'s `<t>`. */
  private collecting = false;
  private value = '';

  constructor(private readonly context: SheetContext) {}

  take(): SheetRow[] {
    const rows = this.rows;
    if (rows.length > 0) this.rows = [];
    return rows;
  }

  readonly text = (text: string): void => {
    if (this.collecting) this.value += text;
  };

  readonly open = (name: string, attributes: Record<string, string>): void => {
    switch (name) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row': {
        if (!this.inSheetData) break;
        const r = attributes.r;
        // A row without its number follows the one before (some writers leave `r` out).
        this.lastRow = r ? Number.parseInt(r, 10) || this.lastRow + 1 : this.lastRow + 1;
        this.row = { number: this.lastRow, values: [] };
        this.rowBytes = 0;
        this.column = 0;
        break;
      }
      case 'c': {
        if (!this.row) break;
        const { r, t, s } = attributes;
        this.column = r ? columnOf(r) || this.column + 1 : this.column + 1;
        this.type = t ?? 'n';
        this.style = s ? Number.parseInt(s, 10) : 0;
        this.hasValue = false;
        this.value = '';
        break;
      }
      case 'v':
        if (!this.row) break;
        this.hasValue = true;
        this.collecting = true;
        break;
      case 'is':
        if (!this.row) break;
        this.hasValue = true;
        this.inInline = true;
        break;
      case 'rPh':
        // Phonetic guides (furigana) are not part of the text.
        this.inPhonetic = true;
        break;
      case 't':
        if (this.inInline && !this.inPhonetic) this.collecting = true;
        break;
    }
  };

  readonly close = (name: string): void => {
    switch (name) {
      case 'v':
      case 't':
        this.collecting = false;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 'is':
        this.inInline = false;
        break;
      case 'c':
        if (this.row && this.hasValue) {
          const value = this.cell();
          if (value === null) break;
          this.rowBytes += typeof value === 'string' ? value.length : 8;
          if (this.rowBytes > this.context.maxRowBytes) {
            this.row.tooLarge ??= { bytes: 0, column: this.column - 1 };
            this.row.tooLarge.bytes = this.rowBytes;
            this.row.tooLarge.column = Math.min(this.row.tooLarge.column, this.column - 1);
          } else this.row.values[this.column - 1] = value;
        }
        break;
      case 'row':
        if (this.row) this.rows.push(this.row);
        this.row = undefined;
        break;
      case 'sheetData':
        this.inSheetData = false;
        break;
    }
  };

  /** The cell's value by its type (`t`): shared string, inline text, boolean, error, or a number or date. */
  private cell(): Cell {
    const text = this.value;
    switch (this.type) {
      case 's': {
        const shared = this.context.sharedStrings?.[Number.parseInt(text, 10)];
        return shared === undefined || shared === '' ? null : shared;
      }
      case 'str':
      case 'inlineStr':
        // A formula's text result or an inline text, its `_xHHHH_` escapes decoded.
        return text === '' ? null : decodeXlsxText(text);
      case 'e':
      case 'd':
        // An error (`#N/A`) or an ISO date: as written.
        return text === '' ? null : text;
      case 'b':
        return text === '' ? null : Number(text) !== 0;
      default: {
        if (text === '') return null;
        const number = Number(text);
        if (Number.isNaN(number)) return text;
        return this.style !== 0 && this.context.isDateStyle(this.style)
          ? excelDate(number, this.context.date1904)
          : number;
      }
    }
  }
}

/** `BC17` -> 55 (1-based column of a cell reference); 0 when it has no letters. */
export function columnOf(ref: string): number {
  let column = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 65 && c <= 90) column = column * 26 + c - 64;
    else if (c >= 97 && c <= 122) column = column * 26 + c - 96;
    else break;
  }
  return column;
}

/**
 * An Excel date as ISO 8601 without a zone (`2025-06-01T10:00:00.000`): Excel stores the wall-clock time
 * a person typed, in no zone. The mapping reads it in the profile's `timezone` (UTC by default). A day
 * with no time of day is the date alone (`2025-06-01`): the same for a date or date-time field, and what
 * a text field should get from a cell that shows a date. Null when out of range.
 */
function excelDate(serial: number, date1904: boolean): Cell {
  const ms = Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return null;
  const text = date.toISOString();
  return ms % 86_400_000 === 0 ? text.slice(0, 10) : text.slice(0, -1);
}
