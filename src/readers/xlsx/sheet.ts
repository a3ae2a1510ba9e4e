// One worksheet's XML (`xl/worksheets/sheetN.xml`) read into rows of cells with saxes. exceljs's own
// streaming sheet reader built a Row and a Cell object (with its style) per cell that the reader then
// threw away, which cost a third of the reading time.
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Cell } from '../types.js';
import { localName } from './parts.js';

/** One `<row>`: its 1-based number in the sheet and its cells by 0-based column (holes are empty cells). */
export interface SheetRow {
  number: number;
  values: Cell[];
}

/** What a sheet's cells refer to, read from the workbook's other parts. */
export interface SheetContext {
  /** Shared strings in order. */
  sharedStrings: readonly string[] | undefined;
  /** The number format of a cell style (`s`), to tell dates from numbers. */
  numberFormat(style: number): string | undefined;
  /** Dates counted from 1904 (old Mac workbooks) instead of 1900. */
  date1904: boolean;
}

/** The sheet's rows, those of one chunk of XML at a time (no empty batch). */
export async function* sheetRowBatches(
  chunks: AsyncIterable<Buffer | string>,
  context: SheetContext,
): AsyncGenerator<SheetRow[]> {
  const sheet = new SheetParser(context);
  // Streaming decode: a character split between two chunks stays one character.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    sheet.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    // The rows before a damage come first, then the failure.
    const rows = sheet.take();
    if (rows.length > 0) yield rows;
    sheet.throwIfFailed();
  }
  sheet.write(decoder.decode());
  sheet.end();
  const rows = sheet.take();
  if (rows.length > 0) yield rows;
  sheet.throwIfFailed();
}

/** Where the parser is in a cell: the text being read goes to the cell's value only inside `<v>` or `<is>`'s `<t>`. */
enum Collect {
  No = 0,
  Yes = 1,
}

class SheetParser {
  private readonly parser = new SaxesParser({ position: false });
  private rows: SheetRow[] = [];
  private failure: Error | undefined;
  private inSheetData = false;
  private row: SheetRow | undefined;
  private lastRow = 0;
  private column = 0;
  private type = '';
  private style = 0;
  private hasValue = false;
  private inInline = false;
  private inPhonetic = false;
  private collect = Collect.No;
  private text = '';
  /** Per style: its number format is a date format. */
  private readonly dateStyles = new Map<number, boolean>();

  constructor(private readonly context: SheetContext) {
    this.parser.on('opentag', (tag) => this.open(tag as SaxesTagPlain));
    this.parser.on('closetag', (tag) => this.close(tag.name));
    this.parser.on('text', (text) => {
      if (this.collect === Collect.Yes) this.text += text;
    });
    this.parser.on('cdata', (text) => {
      if (this.collect === Collect.Yes) this.text += text;
    });
    this.parser.on('error', (err) => {
      this.failure ??= err;
    });
  }

  write(text: string): void {
    if (text && !this.failure) this.parser.write(text);
  }

  end(): void {
    if (!this.failure) this.parser.close();
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  take(): SheetRow[] {
    const rows = this.rows;
    if (rows.length > 0) this.rows = [];
    return rows;
  }

  private open(tag: SaxesTagPlain): void {
    switch (localName(tag.name)) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row': {
        if (!this.inSheetData) break;
        const r = tag.attributes.r;
        // A row without its number follows the one before (some writers leave `r` out).
        this.lastRow = r ? Number.parseInt(r, 10) || this.lastRow + 1 : this.lastRow + 1;
        this.row = { number: this.lastRow, values: [] };
        this.column = 0;
        break;
      }
      case 'c': {
        if (!this.row) break;
        const { r, t, s } = tag.attributes;
        this.column = r ? columnOf(r) || this.column + 1 : this.column + 1;
        this.type = t ?? 'n';
        this.style = s ? Number.parseInt(s, 10) : 0;
        this.hasValue = false;
        this.text = '';
        break;
      }
      case 'v':
        if (!this.row) break;
        this.hasValue = true;
        this.collect = Collect.Yes;
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
        if (this.inInline && !this.inPhonetic) this.collect = Collect.Yes;
        break;
    }
  }

  private close(name: string): void {
    switch (localName(name)) {
      case 'v':
      case 't':
        this.collect = Collect.No;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 'is':
        this.inInline = false;
        break;
      case 'c':
        if (this.row && this.hasValue) {
          const value = this.value();
          if (value !== null) this.row.values[this.column - 1] = value;
        }
        break;
      case 'row':
        // Nothing after a damage counts: the parser reads on, but what it sees may be wrong.
        if (this.row && !this.failure) this.rows.push(this.row);
        this.row = undefined;
        break;
      case 'sheetData':
        this.inSheetData = false;
        break;
    }
  }

  /** The cell's value by its type (`t`): shared string, inline text, boolean, error, or a number or date. */
  private value(): Cell {
    const text = this.text;
    switch (this.type) {
      case 's': {
        const shared = this.context.sharedStrings?.[Number.parseInt(text, 10)];
        return shared === undefined || shared === '' ? null : shared;
      }
      case 'str':
      case 'inlineStr':
      case 'e':
      case 'd':
        // A formula's text result, an inline text, an error (`#N/A`) or an ISO date: as written.
        return text === '' ? null : text;
      case 'b':
        return text === '' ? null : Number(text) !== 0;
      default: {
        if (text === '') return null;
        const number = Number(text);
        if (Number.isNaN(number)) return text;
        return this.isDate(this.style) ? excelDate(number, this.context.date1904) : number;
      }
    }
  }

  private isDate(style: number): boolean {
    if (style === 0) return false;
    let known = this.dateStyles.get(style);
    if (known === undefined) {
      known = isDateFormat(this.context.numberFormat(style));
      this.dateStyles.set(style, known);
    }
    return known;
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
 * A number format that shows a date or a time: y m d h s (either case, as Excel reads them) outside
 * quoted text, `[...]` sections (colours, locales) and escaped characters.
 */
export function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  const bare = format
    .replace(/\[[^\]]*]/g, '')
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/general/gi, '');
  return /[ymdhsb]/i.test(bare);
}

/** A serial day number (with the day's fraction) as an ISO 8601 UTC date-time; null when out of range. */
function excelDate(serial: number, date1904: boolean): Cell {
  const ms = Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
